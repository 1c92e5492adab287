import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type Synchronous = 'FULL' | 'NORMAL';

/**
 * Opens a SQLite file in WAL mode. With synchronous=FULL a committed transaction is on disk before
 * the call returns (power loss included); NORMAL may lose the last commits on power loss, never on a
 * process crash.
 */
export function openDatabase(path: string, synchronous: Synchronous): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // Another process (the operator command, a replica starting beside this one) may hold a lock for a moment:
  // set first, so that switching a new file to WAL waits for it too instead of failing at once.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  return db;
}
