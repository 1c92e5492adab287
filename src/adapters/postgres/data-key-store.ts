import { type BlobKind, type Rewrap, type StoredBlob, SubjectErasedError, type WrappedKeyStore } from '../../ports/data-keys.js';
import type { PostgresOptions, PostgresPool, Sql, TransactionSql } from './client.js';
import { migratedPool, type PostgresStep } from './migrations.js';

/** The steps of an environment's wrapped data keys (its schema's `data-keys` store). */
export const DATA_KEYS_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'wrapped data keys, secrets and the id of the master key that wraps them',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE data_keys (
          subject_id   text COLLATE "C" PRIMARY KEY,
          key          bytea,
          created_at   text NOT NULL,
          destroyed_at text,
          CHECK ((key IS NULL) = (destroyed_at IS NOT NULL))
        );
        CREATE TABLE secrets (name text COLLATE "C" PRIMARY KEY, value bytea NOT NULL);
        CREATE TABLE master_key (one integer PRIMARY KEY CHECK (one = 1), key_id text NOT NULL);`);
    },
  },
];

/** Each kind's table, with its name and blob columns (constants: safe in SQL text); destroyed keys (NULL) are never listed. */
const TABLES: Record<BlobKind, { table: string; name: string; blob: string }> = {
  subject: { table: 'data_keys', name: 'subject_id', blob: 'key' },
  secret: { table: 'secrets', name: 'name', blob: 'value' },
};

/**
 * Wrapped data keys in the environment's PostgreSQL schema (`data_keys`, `secrets`, `master_key`), beside its log.
 * A blob is made in a transaction that first reads the master key record FOR SHARE: recording a new master key
 * updates that row, so it waits for every blob being made with the old id to commit, and a blob begun after it
 * reads the new id. Two replicas making one subject's key: one inserts, the other's ON CONFLICT DO NOTHING waits
 * for it and then reads its blob. A destroyed key's column is set to NULL; its old row version stays in the
 * table's pages until VACUUM reuses them, and in WAL archives and backups, useless without the master key
 * (docs/operations.md, "PostgreSQL").
 */
export class PostgresWrappedKeyStore implements WrappedKeyStore {
  readonly location: string;

  private constructor(
    private readonly pool: PostgresPool,
    schema: string,
  ) {
    this.location = `the PostgreSQL schema ${schema}`;
  }

  static async connect(url: string, schema: string, options?: PostgresOptions): Promise<PostgresWrappedKeyStore> {
    const pool = await migratedPool(url, schema, 'data-keys', DATA_KEYS_STEPS, options);
    return new PostgresWrappedKeyStore(pool, schema);
  }

  async keyFor(subjectId: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer> {
    const found = await this.blob('subject', subjectId);
    const key = found === undefined ? await this.made('subject', subjectId, fresh) : found;
    if (key === null) throw new SubjectErasedError(subjectId);
    return key;
  }

  async find(subjectId: string): Promise<Buffer | undefined> {
    return (await this.blob('subject', subjectId)) ?? undefined;
  }

  async destroy(subjectId: string, at: string): Promise<void> {
    await this.pool.sql`
      INSERT INTO data_keys (subject_id, key, created_at, destroyed_at) VALUES (${subjectId}, NULL, ${at}, ${at})
      ON CONFLICT (subject_id) DO UPDATE SET key = NULL, destroyed_at = coalesce(data_keys.destroyed_at, excluded.destroyed_at)`;
  }

  async secret(name: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer> {
    return (await this.blob('secret', name)) ?? (await this.made('secret', name, fresh))!;
  }

  async masterKeyId(): Promise<string | undefined> {
    const [row] = await this.pool.sql<{ key_id: string }[]>`SELECT key_id FROM master_key`;
    return row?.key_id;
  }

  async recordMasterKeyId(id: string): Promise<void> {
    // Its row lock waits for every blob being made under the old id (they hold the row FOR SHARE) to commit.
    await this.pool.sql`
      INSERT INTO master_key (one, key_id) VALUES (1, ${id}) ON CONFLICT (one) DO UPDATE SET key_id = excluded.key_id`;
  }

  async list(kind: BlobKind, after: string | undefined, limit: number): Promise<StoredBlob[]> {
    const { table, name, blob } = TABLES[kind];
    const rows = await this.pool.sql.unsafe<{ name: string; blob: Buffer }[]>(
      `SELECT ${name} AS name, ${blob} AS blob FROM ${table} WHERE ${blob} IS NOT NULL AND ${name} > $1 ORDER BY ${name} LIMIT $2`,
      [after ?? '', limit],
    );
    return rows.map((row) => ({ kind, name: row.name, blob: row.blob }));
  }

  async rewrap(changes: Rewrap[]): Promise<number> {
    return (await this.pool.sql.begin(async (tx) => {
      let applied = 0;
      for (const { kind, name, from, to } of changes) {
        const { table, name: nameColumn, blob } = TABLES[kind];
        const result = await tx.unsafe(`UPDATE ${table} SET ${blob} = $1 WHERE ${nameColumn} = $2 AND ${blob} = $3`, [to, name, from]);
        applied += result.count;
      }
      return applied;
    })) as number;
  }

  /**
   * VACUUM FULL writes each table anew and drops its old files, so what a blob replaced is no longer in the
   * database's files; WAL archives and backups keep it until they roll over. It locks the two small tables
   * while it runs: opening the store runs it until a master key is recorded (privacy/wrapped-data-keys.ts).
   */
  async compact(): Promise<void> {
    await this.pool.sql`VACUUM FULL data_keys, secrets`;
  }

  async ping(): Promise<void> {
    await this.pool.sql`SELECT 1`;
  }

  close(): Promise<void> {
    return this.pool.release();
  }

  /** The stored blob, null for a destroyed key, undefined when none was made. */
  private async blob(kind: BlobKind, key: string, tx: Sql | TransactionSql = this.pool.sql) {
    const { table, name, blob } = TABLES[kind];
    const [row] = await tx.unsafe<{ blob: Buffer | null }[]>(`SELECT ${blob} AS blob FROM ${table} WHERE ${name} = $1`, [key]);
    return row?.blob;
  }

  /** The blob another maker stored first, or one `fresh` makes with the master key id read FOR SHARE. */
  private async made(kind: BlobKind, key: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer | null> {
    return (await this.pool.sql.begin(async (tx) => {
      const [record] = await tx<{ key_id: string }[]>`SELECT key_id FROM master_key FOR SHARE`;
      if (record === undefined) throw new Error(`${this.location} records no master key yet: data keys cannot be made`);
      const again = await this.blob(kind, key, tx);
      if (again !== undefined) return again;
      const made = fresh(record.key_id);
      const inserted =
        kind === 'subject'
          ? await tx`INSERT INTO data_keys (subject_id, key, created_at) VALUES (${key}, ${made}, ${new Date().toISOString()})
                     ON CONFLICT (subject_id) DO NOTHING RETURNING 1`
          : await tx`INSERT INTO secrets (name, value) VALUES (${key}, ${made}) ON CONFLICT (name) DO NOTHING RETURNING 1`;
      // Another replica stored it first: after its commit, which the conflict waited for, its blob is the one.
      return inserted.length === 1 ? made : ((await this.blob(kind, key, tx)) ?? null);
    })) as Buffer | null;
  }
}
