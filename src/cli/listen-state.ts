import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { newSecret } from '../domain/webhook-secrets.js';
import { CliError } from './errors.js';
import type { Forwarded } from './unseen-events.js';

/** What `nature listen` keeps between runs: its signing secret, and the events it forwarded lately. */
export interface ListenState {
  secret: string;
  forwarded: Forwarded[];
}

/** One file per server and environment, under XDG_STATE_HOME (~/.local/state): a listener resumes there. */
export function defaultStateFile(env: NodeJS.ProcessEnv, baseUrl: string, environment: string): string {
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  const name = createHash('sha256').update(`${baseUrl} ${environment}`).digest('hex').slice(0, 16);
  return join(stateHome, 'nature', `listen-${name}.json`);
}

/** The state in `file`, or a fresh one (a new secret, nothing forwarded) when there is none yet. */
export function loadState(file: string): { state: ListenState; fresh: boolean } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
    return { state: { secret: newSecret(), forwarded: [] }, fresh: true };
  }
  try {
    const state = JSON.parse(text) as ListenState;
    if (typeof state.secret !== 'string' || !Array.isArray(state.forwarded)) throw new Error('not a listen state');
    return { state, fresh: false };
  } catch {
    throw new CliError(`${file} is not a state file of nature listen: move it away to start afresh`);
  }
}

/** Written whole and renamed into place, private to the user: a kill at any moment leaves the old state or the new. */
export function saveState(file: string, state: ListenState): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
  renameSync(temporary, file);
}
