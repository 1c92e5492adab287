import { Readable, Writable } from 'node:stream';
import { expect } from 'vitest';
import { runCli } from '../../src/cli/run.js';

/** `nature keys create` for an sk key that reads and writes, answered as JSON: what most tests mint. */
export function keyCreateArgs(environment: 'test' | 'live' = 'test', name = 'ci', scopes = ['nature:read', 'nature:write']): string[] {
  return [
    'keys',
    'create',
    '--env',
    environment,
    '--type',
    'sk',
    ...scopes.flatMap((scope) => ['--scope', scope]),
    '--name',
    name,
    '--json',
  ];
}

/** What one run of `nature` printed, and its exit status. */
export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it, as a pipe to a test would. */
function collector() {
  let text = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * The operator command run in this process, as `nature args…` with `env` over this process's environment:
 * the same command line, stores and messages as the real process, without starting node for each run.
 * `stdin`, when given, is what it reads on standard input, as if piped in; else it has none.
 * `runCliProcess` in processes.ts starts the real process, for what only a process shows (its exit code, its user).
 */
export async function runCliInProcess(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  const stdout = collector();
  const stderr = collector();
  const status = await runCli(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { ...process.env, ...env },
    ...(stdin !== undefined && { stdin: Readable.from([Buffer.from(stdin, 'utf8')]) }),
  });
  return { status, stdout: stdout.text(), stderr: stderr.text() };
}

/** A command that failed as the operator should see it: the status, nothing on stdout, one line on stderr, no stack. */
export function expectFailure(result: { status: number | null; stdout: string; stderr: string }, status: number, line: RegExp): void {
  expect(result.status, result.stderr).toBe(status);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}
