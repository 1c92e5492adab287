import { randomUUID } from 'node:crypto';
import type { Claim, ClaimRequest, IdempotencyStore } from '../../ports/idempotency.js';
import type { PostgresOptions, PostgresPool, TransactionSql } from './client.js';
import { migratedPool, type PostgresStep } from './migrations.js';

/** The steps of an environment's idempotency keys (its schema's `idempotency` store); times in ms since the epoch. */
export const IDEMPOTENCY_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'idempotency keys with their holders, as data-v1 made them',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE idempotency_keys (
          key          text COLLATE "C" PRIMARY KEY,
          fingerprint  text   NOT NULL,
          holder       text   NOT NULL,
          response     text,
          locked_until bigint NOT NULL,
          expires_at   bigint NOT NULL
        );
        CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);`);
    },
  },
];

interface Row {
  fingerprint: string;
  response: string | null;
  locked_until: string;
}

/** Expired keys removed at a time, by one claim a minute at most: their answers may hold (sealed) personal data. */
const PURGE_BATCH = 500;
const PURGE_EVERY_MS = 60_000;

/**
 * What a live key another request holds answers this one, or undefined when its request died (its lease ran out)
 * and this one may run it again. `unscoped` when it was stored before keys were scoped.
 */
function heldBy(row: Row, fingerprint: string, at: number, unscoped: boolean): Claim | undefined {
  if (row.fingerprint !== fingerprint) return { outcome: 'reused' };
  if (row.response !== null) return { outcome: 'replay', response: row.response, ...(unscoped && { unscoped: true as const }) };
  return Number(row.locked_until) > at ? { outcome: 'in_use' } : undefined;
}

/**
 * Idempotency keys in the environment's PostgreSQL schema (`idempotency_keys`), beside its log and read models,
 * so that every replica answers a retry alike. A claim is one INSERT … ON CONFLICT DO UPDATE that takes the key
 * only when it is free, expired, or held by a request whose lease ran out: of replicas claiming one key at once,
 * one inserts or updates and the others wait for its row lock, then find it held. A process elsewhere cannot be
 * seen to die, so a crashed holder's key is taken over when its lease runs out.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private purgedAt = Number.NEGATIVE_INFINITY;

  private constructor(private readonly pool: PostgresPool) {}

  static async connect(url: string, schema: string, options?: PostgresOptions): Promise<PostgresIdempotencyStore> {
    const pool = await migratedPool(url, schema, 'idempotency', IDEMPOTENCY_STEPS, options);
    return new PostgresIdempotencyStore(pool);
  }

  async claim({ key, unscopedKey, fingerprint, now, leaseMs, ttlMs }: ClaimRequest): Promise<Claim> {
    const at = now.getTime();
    await this.purge(at);
    const holder = randomUUID();
    return (await this.pool.answered(
      this.pool.sql.begin(async (tx) => {
        if (unscopedKey !== undefined) {
          const [before] = await tx<Row[]>`
          SELECT fingerprint, response, locked_until::text FROM idempotency_keys WHERE key = ${unscopedKey} AND expires_at > ${at}`;
          const honoured = before && heldBy(before, fingerprint, at, true);
          if (honoured) return honoured;
        }
        const taken = await tx`
        INSERT INTO idempotency_keys (key, fingerprint, holder, response, locked_until, expires_at)
        VALUES (${key}, ${fingerprint}, ${holder}, NULL, ${at + leaseMs}, ${at + ttlMs})
        ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder, response = NULL,
          locked_until = excluded.locked_until, expires_at = excluded.expires_at
        WHERE idempotency_keys.expires_at <= ${at}
           OR (idempotency_keys.fingerprint = excluded.fingerprint AND idempotency_keys.response IS NULL
               AND idempotency_keys.locked_until <= ${at})
        RETURNING 1`;
        if (taken.length === 1) return { outcome: 'claimed', holder };
        return heldNow(tx, key, fingerprint, at);
      }),
    )) as Claim;
  }

  async complete(key: string, holder: string, response: string): Promise<void> {
    await this.pool.answered(this.pool.sql`
      UPDATE idempotency_keys SET response = ${response}, locked_until = 0 WHERE key = ${key} AND holder = ${holder} AND response IS NULL`);
  }

  async release(key: string, holder: string): Promise<void> {
    await this.pool.answered(this.pool.sql`DELETE FROM idempotency_keys WHERE key = ${key} AND holder = ${holder} AND response IS NULL`);
  }

  async ping(): Promise<void> {
    await this.pool.answered(this.pool.sql`SELECT 1`);
  }

  close(): Promise<void> {
    return this.pool.release();
  }

  /** Removes a batch of expired keys, once a minute at most; rows another replica is removing are skipped. */
  private async purge(at: number): Promise<void> {
    if (performance.now() - this.purgedAt < PURGE_EVERY_MS) return;
    this.purgedAt = performance.now();
    await this.pool.answered(this.pool.sql`
      DELETE FROM idempotency_keys WHERE key IN (
        SELECT key FROM idempotency_keys WHERE expires_at <= ${at} LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`);
  }
}

/** What the live key that refused the claim answers; the upsert left it locked, so it is read as it stands. */
async function heldNow(tx: TransactionSql, key: string, fingerprint: string, at: number): Promise<Claim> {
  const [row] = await tx<Row[]>`SELECT fingerprint, response, locked_until::text FROM idempotency_keys WHERE key = ${key}`;
  // Both are unreachable while the row lock holds: a refused upsert found a live key that a running request holds.
  return (row && heldBy(row, fingerprint, at, false)) ?? { outcome: 'in_use' };
}
