import type Database from 'better-sqlite3';
import { type BlobKind, type Rewrap, type StoredBlob, SubjectErasedError, type WrappedKeyStore } from '../../ports/data-keys.js';
import { TurnBatch } from '../../support/turn-batch.js';
import { openDatabase, type Synchronous } from './database.js';
import { migrate, type SqliteStep } from './migrations.js';

/** The keys and secrets as data-v1 made them (raw; the master key wraps them since: wrapped-data-keys.ts). */
const V1_SCHEMA = `
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

/** data-keys.db's steps (its user_version). */
export const DATA_KEYS_FILE_STEPS: SqliteStep[] = [
  { version: 1, does: 'data keys and secrets as data-v1 made them', run: (db) => db.exec(V1_SCHEMA) },
  {
    version: 2,
    does: 'the id of the master key that wraps them',
    run: (db) => db.exec('CREATE TABLE IF NOT EXISTS master_key (one INTEGER PRIMARY KEY CHECK (one = 1), key_id TEXT NOT NULL)'),
  },
];

interface QueuedKey {
  subjectId: string;
  fresh: (masterKeyId: string) => Buffer;
  resolve: (key: Buffer | null) => void;
  reject: (error: unknown) => void;
}

/** Each kind's table, with its name and blob columns; destroyed keys (NULL) are never listed. */
const TABLES: Record<BlobKind, { table: string; name: string; blob: string }> = {
  subject: { table: 'data_keys', name: 'subject_id', blob: 'key' },
  secret: { table: 'secrets', name: 'name', blob: 'value' },
};

/**
 * Wrapped data keys in their own SQLite file. secure_delete zeroes a destroyed or replaced blob's bytes in
 * the page, and a truncating WAL checkpoint after each destruction or rewrap leaves no older copy of the page
 * in the WAL file. A blob is made in an immediate transaction that also reads the master key id the store
 * records, so it is ordered with recordMasterKeyId.
 */
export class SqliteWrappedKeyStore implements WrappedKeyStore {
  private readonly db: Database.Database;
  private readonly statements;
  /** Keys asked for and not yet made: made together on the next turn (makeQueued). */
  private readonly queue = new TurnBatch<QueuedKey>((batch) => this.makeQueued(batch));
  /** What every caller asking for a queued subject's key waits on, by subject. */
  private readonly making = new Map<string, Promise<Buffer | null>>();

  constructor(
    readonly location: string,
    synchronous: Synchronous,
  ) {
    this.db = openDatabase(location, synchronous);
    this.db.pragma('secure_delete = ON');
    migrate(this.db, location, DATA_KEYS_FILE_STEPS);
    this.statements = {
      get: this.db.prepare<[string], { key: Buffer | null }>('SELECT key FROM data_keys WHERE subject_id = ?'),
      insert: this.db.prepare<[string, Buffer, string]>('INSERT INTO data_keys (subject_id, key, created_at) VALUES (?, ?, ?)'),
      destroy: this.db.prepare<[string, string, string]>(
        `INSERT INTO data_keys (subject_id, key, created_at, destroyed_at) VALUES (?, NULL, ?, ?)
         ON CONFLICT (subject_id) DO UPDATE SET key = NULL, destroyed_at = coalesce(destroyed_at, excluded.destroyed_at)`,
      ),
      secret: this.db.prepare<[string], { value: Buffer }>('SELECT value FROM secrets WHERE name = ?'),
      insertSecret: this.db.prepare<[string, Buffer]>('INSERT INTO secrets (name, value) VALUES (?, ?)'),
      masterKeyId: this.db.prepare<[], { key_id: string }>('SELECT key_id FROM master_key'),
      recordMasterKeyId: this.db.prepare<[string]>(
        'INSERT INTO master_key (one, key_id) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET key_id = excluded.key_id',
      ),
      list: { subject: this.listing('subject'), secret: this.listing('secret') },
      rewrap: { subject: this.rewrapping('subject'), secret: this.rewrapping('secret') },
    };
  }

  private listing(kind: BlobKind) {
    const { table, name, blob } = TABLES[kind];
    return this.db.prepare<[string, number], { name: string; blob: Buffer }>(
      `SELECT ${name} AS name, ${blob} AS blob FROM ${table} WHERE ${blob} IS NOT NULL AND ${name} > ? ORDER BY ${name} LIMIT ?`,
    );
  }

  private rewrapping(kind: BlobKind) {
    const { table, name, blob } = TABLES[kind];
    return this.db.prepare<[Buffer, string, Buffer]>(`UPDATE ${table} SET ${blob} = ? WHERE ${name} = ? AND ${blob} = ?`);
  }

  /** The master key id the store records; what a blob made now must be wrapped by. */
  private recordedId(): string {
    const id = this.statements.masterKeyId.get()?.key_id;
    if (id === undefined) throw new Error(`${this.location} records no master key yet: data keys cannot be made`);
    return id;
  }

  async keyFor(subjectId: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer> {
    // Most calls find the key: no write lock for them.
    const found = this.statements.get.get(subjectId);
    const key = found === undefined ? await this.made(subjectId, fresh) : found.key;
    if (key === null) throw new SubjectErasedError(subjectId);
    return key;
  }

  /**
   * Keys asked for in one turn of the event loop are made in one transaction, committed once (one fsync for a
   * burst of new subjects instead of one each); each caller is answered after that commit.
   */
  private made(subjectId: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer | null> {
    const waiting = this.making.get(subjectId);
    if (waiting !== undefined) return waiting;
    const made = new Promise<Buffer | null>((resolve, reject) => this.queue.add({ subjectId, fresh, resolve, reject }));
    this.making.set(subjectId, made);
    return made;
  }

  private makeQueued(batch: QueuedKey[]): void {
    // Every subject waiting is in this batch: one asked for from now on is queued for the next.
    this.making.clear();
    try {
      const keys = this.db
        .transaction(() =>
          batch.map(({ subjectId, fresh }) => {
            const row = this.statements.get.get(subjectId);
            if (row !== undefined) return row.key;
            const blob = fresh(this.recordedId());
            this.statements.insert.run(subjectId, blob, new Date().toISOString());
            return blob;
          }),
        )
        .immediate();
      for (const [index, { resolve }] of batch.entries()) resolve(keys[index]!);
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }

  async find(subjectId: string): Promise<Buffer | undefined> {
    return this.statements.get.get(subjectId)?.key ?? undefined;
  }

  async destroy(subjectId: string, at: string): Promise<void> {
    this.statements.destroy.run(subjectId, at, at);
    // Another connection reading at this moment can keep the WAL from truncating; the next destruction or close does it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async secret(name: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer> {
    return (
      this.statements.secret.get(name)?.value ??
      this.db
        .transaction(() => {
          const found = this.statements.secret.get(name)?.value;
          if (found !== undefined) return found;
          const blob = fresh(this.recordedId());
          this.statements.insertSecret.run(name, blob);
          return blob;
        })
        .immediate()
    );
  }

  async masterKeyId(): Promise<string | undefined> {
    return this.statements.masterKeyId.get()?.key_id;
  }

  async recordMasterKeyId(id: string): Promise<void> {
    // A write transaction of its own: it waits for a blob being made, and every later one reads the new id.
    this.statements.recordMasterKeyId.run(id);
  }

  async list(kind: BlobKind, after: string | undefined, limit: number): Promise<StoredBlob[]> {
    return this.statements.list[kind].all(after ?? '', limit).map(({ name, blob }) => ({ kind, name, blob }));
  }

  async rewrap(changes: Rewrap[]): Promise<number> {
    const applied = this.db
      .transaction(() =>
        changes.reduce((count, { kind, name, from, to }) => count + this.statements.rewrap[kind].run(to, name, from).changes, 0),
      )
      .immediate();
    if (applied > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return applied;
  }

  async compact(): Promise<void> {
    // A raw key replaced by a longer blob can leave its bytes in a page's free space: VACUUM rebuilds every page.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.exec('VACUUM');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  /** Makes what is still queued, then closes. */
  async close(): Promise<void> {
    this.queue.flush();
    this.db.close();
  }
}
