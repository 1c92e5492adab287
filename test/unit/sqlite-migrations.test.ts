import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataTooNewError, StoreBehindError } from '../../src/adapters/data-versions.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { assertMigrated, migrate } from '../../src/adapters/sqlite/migrations.js';
import { countedSteps } from '../support/counted-steps.js';
import { tempDir } from '../support/temp-dir.js';

const worker = fileURLToPath(new URL('../support/migrate-worker.ts', import.meta.url));

/** Each step's runs, in order, and the file's version: read on a connection of its own. */
function stateOf(path: string): { version: number; runs: number[]; things: number | undefined } {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    const has = (name: string) => tables.some((table) => table.name === name);
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      runs: has('runs') ? db.prepare<[], number>('SELECT step FROM runs ORDER BY step').pluck().all() : [],
      things: has('things') ? db.prepare<[], number>('SELECT count(*) FROM things').pluck().get() : undefined,
    };
  } finally {
    db.close();
  }
}

/** Starts a worker; resolves once its file is open, with the promise of its exit (its code, or the signal that ended it). */
async function startWorker(path: string, killIn?: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', worker, path, ...(killIn === undefined ? [] : [String(killIn)])],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', () => reject(new Error('the worker ended before it was ready')));
  });
  return { exited };
}

describe('the SQLite migration runner', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('runs every step on a new file, once: a second run is a no-op', () => {
    const path = join(dir.path, 'store.db');
    const db = openDatabase(path, 'NORMAL');
    expect(migrate(db, path, countedSteps())).toBe(3);
    expect(migrate(db, path, countedSteps())).toBe(0);
    db.close();
    expect(stateOf(path)).toEqual({ version: 3, runs: [1, 2, 3], things: 20_000 });
  });

  it('runs only the steps a file does not hold yet', () => {
    const path = join(dir.path, 'store.db');
    const db = openDatabase(path, 'NORMAL');
    migrate(db, path, countedSteps().slice(0, 1));
    expect(migrate(db, path, countedSteps())).toBe(2);
    db.close();
    expect(stateOf(path)).toEqual({ version: 3, runs: [1, 2, 3], things: 20_000 });
  });

  it('leaves the file at the step before, as it was, when a step throws; the next run takes it from there', () => {
    const path = join(dir.path, 'store.db');
    const db = openDatabase(path, 'NORMAL');
    expect(() => migrate(db, path, countedSteps({ step: 2, how: 'throw' }))).toThrow(`${path}: step 2 (things) failed: step 2 failed`);
    expect(stateOf(path)).toEqual({ version: 1, runs: [1], things: undefined });
    expect(migrate(db, path, countedSteps())).toBe(2);
    db.close();
    expect(stateOf(path)).toEqual({ version: 3, runs: [1, 2, 3], things: 20_000 });
  });

  it('runs each step once when several processes start on one file together', async () => {
    const path = join(dir.path, 'store.db');
    const exits = await Promise.all([1, 2, 3].map(() => startWorker(path)));
    writeFileSync(`${path}.go`, '');
    expect(await Promise.all(exits.map(({ exited }) => exited))).toEqual([0, 0, 0]);
    expect(stateOf(path)).toEqual({ version: 3, runs: [1, 2, 3], things: 20_000 });
  });

  it('leaves the file at the step before when its process is killed in a step; the next start resumes', async () => {
    const path = join(dir.path, 'store.db');
    writeFileSync(`${path}.go`, '');
    expect(await (await startWorker(path, 2)).exited).toBe('SIGKILL');
    expect(stateOf(path)).toEqual({ version: 1, runs: [1], things: undefined });
    expect(await (await startWorker(path)).exited).toBe(0);
    expect(stateOf(path)).toEqual({ version: 3, runs: [1, 2, 3], things: 20_000 });
  });

  it('refuses a file a newer version upgraded, and steps numbered out of order', () => {
    const path = join(dir.path, 'store.db');
    const db = openDatabase(path, 'NORMAL');
    db.pragma('user_version = 4');
    expect(() => migrate(db, path, countedSteps())).toThrow(DataTooNewError);
    expect(() => migrate(db, path, [countedSteps()[1]!])).toThrow(/step 1 is numbered 2/);
    db.close();
  });

  it('opens a file as it is only when it holds every step', () => {
    const path = join(dir.path, 'store.db');
    const db = openDatabase(path, 'NORMAL');
    expect(() => assertMigrated(db, path, countedSteps())).toThrow(StoreBehindError);
    expect(stateOf(path).version).toBe(0);
    migrate(db, path, countedSteps());
    expect(() => assertMigrated(db, path, countedSteps())).not.toThrow();
    db.close();
  });
});
