import type { ActivityRecord } from '../../domain/accounts.js';
import type { ApiKeyRecord } from '../../domain/api-keys.js';
import type { KeyStore } from '../../ports/key-store.js';
import type { PostgresOptions, PostgresPool, Sql, TransactionSql } from './client.js';
import { KEYS_SCHEMA, KEYS_STEPS, KEYS_STORE, recordActivity } from './keys-schema.js';
import { migratedPool } from './migrations.js';

const COLUMNS = [
  'id',
  'name',
  'environment',
  'type',
  'scopes',
  'hash',
  'last4',
  'created_at',
  'revoked_at',
  'revoked_reason',
  'rotated_from',
  'origins',
  'last_used_at',
] as const;

/**
 * API keys in the keys schema (`nature_keys.api_keys`), shared by both environments and every replica: SHA-256
 * hashes only, never a raw key. A change and the activity entry recording it commit in one transaction; a
 * rotation revokes the old key (locked FOR UPDATE, so two rotations of one key cannot both win) and inserts its
 * replacement in one.
 *
 * Every change also notifies (NOTIFY at its COMMIT) every process listening, which moves their `version`: the HTTP
 * layer's key cache then asks again. A notification lost while a listening connection was down is covered by the
 * version also moving once a second: a revocation made by another replica is seen at once, and a second later at
 * worst. Before the first LISTEN has answered there is no version: keys are looked up on every request.
 */
export class PostgresKeyStore implements KeyStore {
  /** Moves on each change notified (or made here), on each LISTEN (again), and once a second. */
  private changes = 0;
  private second = 0;
  private listening = false;
  private listener: { unlisten(): Promise<void> } | undefined;

  private constructor(private readonly pool: PostgresPool) {}

  static async connect(url: string, schema = KEYS_SCHEMA, options?: PostgresOptions): Promise<PostgresKeyStore> {
    const pool = await migratedPool(url, schema, KEYS_STORE, KEYS_STEPS, options);
    const store = new PostgresKeyStore(pool);
    await store.listen();
    return store;
  }

  private async listen(): Promise<void> {
    this.listener = await this.pool.sql.listen(
      KEYS_CHANNEL,
      () => this.changes++,
      () => {
        // Listening (again, after a reconnect): whatever changed meanwhile, the cache asks again.
        this.changes++;
        this.listening = true;
      },
    );
  }

  version(): number | undefined {
    if (!this.listening) return undefined;
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.changes++;
    }
    return this.changes;
  }

  async insert(record: ApiKeyRecord, activity?: ActivityRecord): Promise<void> {
    await this.pool.sql.begin(async (tx) => {
      await insertKey(tx, record);
      await recordActivity(tx, activity);
      await notifyChange(tx);
    });
    this.changes++;
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.pool.sql<ApiKeyRecord[]>`SELECT ${this.pool.sql(COLUMNS)} FROM api_keys WHERE hash = ${hash}`;
    return row && fromRow(row);
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return keyById(this.pool.sql, id);
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.pool.sql<ApiKeyRecord[]>`SELECT ${this.pool.sql(COLUMNS)} FROM api_keys ORDER BY id`;
    return rows.map(fromRow);
  }

  async revoke(id: string, at: string, reason: 'revoked' | 'rotated', activity?: ActivityRecord): Promise<ApiKeyRecord | undefined> {
    const record = (await this.pool.sql.begin(async (tx) => {
      const revoked = await tx`
        UPDATE api_keys SET revoked_at = ${at}, revoked_reason = ${reason}
        WHERE id = ${id} AND (revoked_at IS NULL OR (revoked_reason = 'rotated' AND revoked_at COLLATE "C" > ${at})) RETURNING 1`;
      if (revoked.length === 1) {
        await recordActivity(tx, activity);
        await notifyChange(tx);
      }
      return keyById(tx, id);
    })) as ApiKeyRecord | undefined;
    this.changes++;
    return record;
  }

  async rotate(oldId: string, replacement: ApiKeyRecord, at: string, activity?: ActivityRecord): Promise<void> {
    await this.pool.sql.begin(async (tx) => {
      const rotated = await tx`
        UPDATE api_keys SET revoked_at = ${at}, revoked_reason = 'rotated' WHERE id = ${oldId} AND revoked_at IS NULL RETURNING 1`;
      if (rotated.length !== 1) throw new Error(`key ${oldId} is not an active key`);
      await insertKey(tx, replacement);
      await recordActivity(tx, activity);
      await notifyChange(tx);
    });
    this.changes++;
  }

  /** Not a change of any key's standing: nothing is notified, so no process's key cache is emptied for it. */
  async markUsed(hours: ReadonlyMap<string, string>): Promise<void> {
    if (hours.size === 0) return;
    const ids = [...hours.keys()];
    const ats = [...hours.values()];
    await this.pool.sql`
      UPDATE api_keys SET last_used_at = used.at
      FROM unnest(${ids}::text[], ${ats}::text[]) AS used(id, at)
      WHERE api_keys.id = used.id AND (api_keys.last_used_at IS NULL OR api_keys.last_used_at < used.at)`;
  }

  async ping(): Promise<void> {
    await this.pool.sql`SELECT 1`;
  }

  async close(): Promise<void> {
    this.listening = false;
    await this.listener?.unlisten().catch(() => undefined);
    await this.pool.release();
  }
}

/** The channel every process's key store listens on for changes to the keys. */
const KEYS_CHANNEL = 'nature_keys_changed';

/** Delivered at COMMIT, to every listener, and not at all when the change rolls back. */
async function notifyChange(tx: TransactionSql): Promise<void> {
  await tx`SELECT pg_notify(${KEYS_CHANNEL}, '')`;
}

async function insertKey(tx: TransactionSql, key: ApiKeyRecord): Promise<void> {
  await tx`
    INSERT INTO api_keys (id, name, environment, type, scopes, hash, last4, created_at, revoked_at, revoked_reason, rotated_from, origins, last_used_at)
    VALUES (${key.id}, ${key.name}, ${key.environment}, ${key.type}, ${key.scopes}::text[],
      ${key.hash}, ${key.last4}, ${key.created_at}, ${key.revoked_at}, ${key.revoked_reason}, ${key.rotated_from}, ${key.origins}::text[],
      ${key.last_used_at})`;
}

async function keyById(sql: Sql | TransactionSql, id: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await sql<ApiKeyRecord[]>`SELECT ${sql(COLUMNS)} FROM api_keys WHERE id = ${id}`;
  return row && fromRow(row);
}

/** A row as its record (text[] columns come back as arrays), with arrays of its own as every store answers. */
function fromRow(row: ApiKeyRecord): ApiKeyRecord {
  return { ...row, scopes: [...row.scopes], origins: [...row.origins] };
}
