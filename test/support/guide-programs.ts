import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './docs-blocks.js';
import { envOutsideNpm } from './processes.js';

/** tsx, as the reader runs a pasted TypeScript file (`npx tsx file.ts`); by path, so it runs from any folder. */
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');

/** A TypeScript file of a guide running in a process of its own, what it prints kept as it comes. */
export interface GuideProgram {
  output: () => string;
  /** Resolves once what it printed matches `pattern`; rejects if it exits before. */
  printed: (pattern: RegExp) => Promise<RegExpExecArray>;
  /** Resolves with what it printed once it ends well (exit 0); rejects otherwise. */
  finished: Promise<string>;
  stop: () => Promise<void>;
}

/** Runs `file` (in `cwd`) with tsx, `env` over a terminal's environment. */
export function startGuideProgram(cwd: string, file: string, env: Record<string, string>): GuideProgram {
  const child = spawn(process.execPath, [tsx, file], {
    cwd,
    env: { ...envOutsideNpm, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const waiting = new Set<() => void>();
  const changed = () => {
    for (const check of waiting) check();
  };
  child.stdout.on('data', (chunk) => {
    output += chunk;
    changed();
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
    changed();
  });
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const finished = exited.then((code) => {
    if (code !== 0) throw new Error(`${file} ended with ${code}:\n${output}`);
    return output;
  });
  // Awaited by whoever asks; not an unhandled rejection when nobody does (a receiver stopped on purpose).
  finished.catch(() => {});
  return {
    output: () => output,
    finished,
    printed: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(output);
          if (!found) return;
          waiting.delete(check);
          resolve(found);
        };
        waiting.add(check);
        void exited.then(() => {
          if (!waiting.has(check)) return;
          waiting.delete(check);
          reject(new Error(`${file} ended (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`));
        });
        check();
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** Resolves once something answers HTTP at `url` (a receiver that has started listening): any status will do. */
export async function answering(url: string): Promise<void> {
  for (;;) {
    try {
      await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The shape of a JSON value, for comparing a guide's example with a real answer: the same keys, recursively, and the
 * same value types. Values may differ, but a string keeps what kind of string it is: an id keeps its prefix
 * (`evt_`, `car_`), a time stays a time.
 */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, member]) => [key, shapeOf(member)]),
    );
  }
  if (typeof value === 'string') {
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return 'string: a time';
    const id = /^([a-z]{3})_\w+$/.exec(value);
    if (id) return `string: an id ${id[1]}_…`;
    return 'string';
  }
  return typeof value;
}
