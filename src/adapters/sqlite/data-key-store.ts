import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { type DataKeyStore, SubjectErasedError } from '../../ports/data-keys.js';
import { openDatabase, type Synchronous } from './database.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS data_keys (
  subject_id   TEXT PRIMARY KEY,
  key          BLOB,
  created_at   TEXT NOT NULL,
  destroyed_at TEXT,
  CHECK ((key IS NULL) = (destroyed_at IS NOT NULL))
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS secrets (
  name  TEXT PRIMARY KEY,
  value BLOB NOT NULL
) WITHOUT ROWID;
`;

/**
 * Data keys in their own SQLite file. secure_delete zeroes a destroyed key's bytes in the page, and a
 * truncating WAL checkpoint after each destruction leaves no older copy of the page in the WAL file.
 */
export class SqliteDataKeyStore implements DataKeyStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(path: string, synchronous: Synchronous) {
    this.db = openDatabase(path, synchronous);
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    this.statements = {
      get: this.db.prepare<[string], { key: Buffer | null }>('SELECT key FROM data_keys WHERE subject_id = ?'),
      insert: this.db.prepare<[string, Buffer, string]>('INSERT INTO data_keys (subject_id, key, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
      destroy: this.db.prepare<[string, string, string]>(
        `INSERT INTO data_keys (subject_id, key, created_at, destroyed_at) VALUES (?, NULL, ?, ?)
         ON CONFLICT (subject_id) DO UPDATE SET key = NULL, destroyed_at = coalesce(destroyed_at, excluded.destroyed_at)`,
      ),
      secret: this.db.prepare<[string], { value: Buffer }>('SELECT value FROM secrets WHERE name = ?'),
      insertSecret: this.db.prepare<[string, Buffer]>('INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING'),
    };
  }

  async keyFor(subjectId: string): Promise<Buffer> {
    const key = this.db
      .transaction(() => {
        const row = this.statements.get.get(subjectId);
        if (row === undefined) this.statements.insert.run(subjectId, randomBytes(32), new Date().toISOString());
        return this.statements.get.get(subjectId)!.key;
      })
      .immediate();
    if (key === null) throw new SubjectErasedError(subjectId);
    return key;
  }

  find(subjectId: string): Promise<Buffer | undefined> {
    return Promise.resolve(this.statements.get.get(subjectId)?.key ?? undefined);
  }

  destroy(subjectId: string, at: string): Promise<void> {
    this.statements.destroy.run(subjectId, at, at);
    // Another connection reading at this moment can keep the WAL from truncating; the next destruction or close does it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return Promise.resolve();
  }

  environmentSecret(): Promise<Buffer> {
    this.statements.insertSecret.run('environment', randomBytes(32));
    return Promise.resolve(this.statements.secret.get('environment')!.value);
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
