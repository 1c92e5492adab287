import type Database from 'better-sqlite3';
import type { ActivityRecord } from '../../domain/accounts.js';

/**
 * The account's activity log in keys.db: the account store reads and appends it, and the key store writes a key's
 * change and the entry that records it in one transaction, so a crash never leaves one without the other.
 */
export const ACTIVITY_SCHEMA = `
CREATE TABLE IF NOT EXISTS activity (
  id         TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_by_account ON activity (account_id, id);
`;

/** Appends an entry through `db`'s connection (inside the caller's transaction, if any). */
export function activityAppender(db: Database.Database): (entry: ActivityRecord) => void {
  db.exec(ACTIVITY_SCHEMA);
  const insert = db.prepare<[string, string, string]>('INSERT INTO activity (id, account_id, body) VALUES (?, ?, ?)');
  return (entry) => insert.run(entry.id, entry.account_id, JSON.stringify(entry));
}
