import type Database from 'better-sqlite3';
import { checkNumbering, DataTooNewError, type MigrationStep, StoreBehindError, stepFailed } from '../data-versions.js';

/** A change to one SQLite file, synchronous: it runs inside the transaction that records it. */
export type SqliteStep = MigrationStep<(db: Database.Database) => void>;

const versionOf = (db: Database.Database) => db.pragma('user_version', { simple: true }) as number;

/**
 * Brings a file to its last step. `PRAGMA user_version` is the last step the file holds; each pending step runs
 * in its own IMMEDIATE transaction together with setting user_version to its number, and the version is read
 * again once the write lock is held. So replicas starting together run each step once (the later one finds it
 * done), and a process killed in a step leaves the file at the step before (the transaction never committed):
 * the next start runs it again. A file already at the last step is only read. Answers how many steps this call ran.
 */
export function migrate(db: Database.Database, store: string, steps: readonly SqliteStep[]): number {
  if (versionChecked(db, store, steps) === steps.length) return 0;
  let ran = 0;
  for (const step of steps) {
    try {
      db.transaction(() => {
        if (versionOf(db) >= step.version) return;
        step.run(db);
        db.pragma(`user_version = ${step.version}`);
        ran += 1;
      }).immediate();
    } catch (error) {
      throw stepFailed(store, step, error);
    }
  }
  return ran;
}

/** For a file opened as it is, never changed (an operator command beside a server): throws unless it is at the last step. */
export function assertMigrated(db: Database.Database, store: string, steps: readonly SqliteStep[]): void {
  const version = versionChecked(db, store, steps);
  if (version < steps.length) throw new StoreBehindError(store, version, steps.length);
}

function versionChecked(db: Database.Database, store: string, steps: readonly SqliteStep[]): number {
  checkNumbering(store, steps);
  const version = versionOf(db);
  if (version > steps.length) throw new DataTooNewError(store, version, steps.length);
  return version;
}

/** The columns of `table`, none when there is no such table: what a step 1 checks an existing file by. */
export function columnsOf(db: Database.Database, table: string): string[] {
  return db
    .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
    .all()
    .map(({ name }) => name);
}
