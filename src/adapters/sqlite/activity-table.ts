import type Database from 'better-sqlite3';
import type { ActivityRecord } from '../../domain/accounts.js';

/** Appends an entry to keys.db's activity log (keys-file.ts) through `db`'s connection (inside the caller's transaction, if any). */
export function activityAppender(db: Database.Database): (entry: ActivityRecord) => void {
  const insert = db.prepare<[string, string, string]>('INSERT INTO activity (id, account_id, body) VALUES (?, ?, ?)');
  return (entry) => insert.run(entry.id, entry.account_id, JSON.stringify(entry));
}
