import { execFileSync } from 'node:child_process';
import type { Scope } from '../../src/domain/api-keys.js';
import { mintKeysInto } from '../../test/support/keys.js';
import { root, tempDir } from './paths.js';
import { type Process, startProcess } from './processes.js';

export interface NatureServer extends Process {
  /** A sandbox secret key: nature:read and nature:write unless other scopes were asked for. */
  key: string;
  dataDir: string;
}

let built = false;

/** Builds the checkout (`npm run build`, as `npm start` does first) once per benchmark, so dist/ is this code. */
function buildServer(): void {
  if (built) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  built = true;
}

/**
 * The real server, compiled (`dist/src/server/main.js`, what `npm start` runs), on a fresh data directory, as an operator
 * runs it: the default log level (one line per request, to a file here), synchronous=FULL, a rate limit it never
 * reaches. The key is minted straight into keys.db, as `nature keys create` does, before the server opens it.
 */
export async function startNatureServer(
  env: Record<string, string> = {},
  keepDataIn?: string,
  scopes: Scope[] = ['nature:read', 'nature:write'],
): Promise<NatureServer> {
  // A data directory the caller gives is the caller's to remove (to read the stores after the server stops).
  const data = keepDataIn === undefined ? tempDir('nature-bench-data-') : { path: keepDataIn, cleanup: () => undefined };
  const [raw] = await mintKeysInto(data.path, [{ environment: 'test', type: 'sk', scopes }]);
  buildServer();
  // Where the API keys are kept on PostgreSQL, the key goes there as an operator moves keys.db's (`nature keys import`).
  if (env.NATURE_READ_MODELS === 'postgres') {
    execFileSync(process.execPath, ['bin/nature.js', 'keys', 'import'], {
      cwd: root,
      env: { ...process.env, NATURE_DATA_DIR: data.path, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const server = await startProcess(
    'dist/src/server/main.js',
    {
      NATURE_DATA_DIR: data.path,
      NATURE_RATE_LIMIT_PER_SECOND: '1000000',
      NATURE_RATE_LIMIT_BURST: '1000000',
      // The lifecycle benchmark's receiver listens on loopback.
      NATURE_WEBHOOK_ALLOW_PRIVATE: 'sandbox',
      ...env,
    },
    '/healthz',
  ).catch((error: unknown) => {
    data.cleanup();
    throw error;
  });
  return {
    ...server,
    key: raw!,
    dataDir: data.path,
    async stop() {
      const text = await server.stop();
      data.cleanup();
      return text;
    },
  };
}

/**
 * The HTTP benchmark's anchors (`anchors.ts`) in their own process: the ceilings of a GET and of a durable write,
 * the write to the store `store` names (ANCHOR_DB, a file, or ANCHOR_POSTGRES_URL).
 */
export function startAnchors(itemsFile: string, store: Record<string, string>): Promise<Process> {
  return startProcess('bench/lib/anchors.ts', { ANCHOR_ITEMS_FILE: itemsFile, ...store }, '/v1/nature/items');
}
