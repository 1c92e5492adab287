import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** How long opening waits for another process's lock, as every later statement does (busy_timeout). */
const LOCK_WAIT_MS = 5000;
const RETRY_EVERY_MS = 10;

export type Synchronous = 'FULL' | 'NORMAL';

/**
 * Opens a SQLite file in WAL mode. With synchronous=FULL a committed transaction is on disk before
 * the call returns (power loss included); NORMAL may lose the last commits on power loss, never on a
 * process crash.
 */
export function openDatabase(path: string, synchronous: Synchronous): Database.Database {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createOwnerOnly(path);
  }
  const db = new Database(path);
  // Another process (the operator command, a replica starting beside this one) may hold a lock for a moment:
  // set first, so that switching a new file to WAL waits for it too instead of failing at once.
  db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
  switchToWal(db);
  db.pragma(`synchronous = ${synchronous}`);
  return db;
}

/**
 * The stores hold password hashes, wrapped keys and sealed personal data: readable by their owner only. SQLite
 * makes a new file 0644 (less the umask) and gives its -wal and -shm files the database's mode, so the database is
 * created empty at 0600 first (an empty file is an empty database). Files an older version left wider are narrowed
 * where the data directory is checked (data-dir.ts), before any store opens.
 */
function createOwnerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
}

/**
 * Switching a file that is still in rollback mode to WAL needs an exclusive lock. While another process writes
 * it (a replica making the same new file's tables), SQLite answers SQLITE_BUSY at once instead of calling the
 * busy handler, since waiting could deadlock. So the switch is tried again until the other has committed, for
 * as long as any statement waits.
 */
function switchToWal(db: Database.Database): void {
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw error;
      // Start-up only, and synchronous like every other SQLite call here: a plain blocking wait.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_EVERY_MS);
    }
  }
}
