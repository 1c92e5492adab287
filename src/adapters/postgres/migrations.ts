import { checkNumbering, DataTooNewError, type MigrationStep, StoreBehindError, stepFailed } from '../data-versions.js';
import { checkedSchema, type PostgresOptions, type PostgresPool, poolFor, type Sql, type TransactionSql } from './client.js';

/** A change to one store's tables in its schema; runs in the transaction that records its number. */
export type PostgresStep = MigrationStep<(tx: TransactionSql) => Promise<void>>;

/** The first key of the advisory locks that serialise a schema's migrations (the second: the schema's hash). */
const MIGRATION_LOCK = 0x6e_6d_69_67; // 'nmig'

/**
 * Runs `work` in a transaction holding the schema's migration lock (transaction-scoped: gone at its COMMIT), so
 * that replicas starting together change the schema's tables one at a time.
 */
export function underSchemaLock<T>(sql: Sql, schema: string, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}, hashtext(${schema}))`;
    return work(tx);
  }) as Promise<T>;
}

/** The last step each store of the schema holds; `to_regclass` is null before a first step made it. */
const versionOf = async (sql: Sql | TransactionSql, store: string): Promise<number> => {
  const [table] = await sql<{ exists: boolean }[]>`SELECT to_regclass('_versions') IS NOT NULL AS exists`;
  if (!table?.exists) return 0;
  const [row] = await sql<{ version: number }[]>`SELECT version FROM _versions WHERE store = ${store}`;
  return row?.version ?? 0;
};

/**
 * Brings a store in the pool's schema to its last step, as the SQLite files' user_version does. Each pending step
 * runs in its own transaction that first takes a transaction-scoped advisory lock on the schema, then reads the
 * version again: replicas starting together run each step once (the later one finds it done, the lock gone with
 * the first one's COMMIT), and a process killed in a step leaves the store at the step before (DDL is
 * transactional here). `asIs` (an operator command beside a server) runs nothing and throws StoreBehindError when
 * a step is due. Answers how many steps this call ran.
 */
export async function migrate(sql: Sql, schema: string, store: string, steps: readonly PostgresStep[], asIs = false): Promise<number> {
  checkNumbering(store, steps);
  const found = await versionOf(sql, store);
  if (found > steps.length) throw new DataTooNewError(store, found, steps.length);
  if (found === steps.length) return 0;
  if (asIs) throw new StoreBehindError(store, found, steps.length);
  let ran = 0;
  for (const step of steps.slice(found)) {
    // One lock per schema: its stores share the schema and the versions table that two replicas may both make.
    await underSchemaLock(sql, schema, async (tx) => {
      await tx.unsafe(
        `CREATE SCHEMA IF NOT EXISTS ${checkedSchema(schema)}; CREATE TABLE IF NOT EXISTS _versions (store text PRIMARY KEY, version integer NOT NULL)`,
      );
      const version = await versionOf(tx, store);
      if (version > steps.length) throw new DataTooNewError(store, version, steps.length);
      if (version >= step.version) return;
      await step.run(tx);
      await tx`INSERT INTO _versions (store, version) VALUES (${store}, ${step.version})
                 ON CONFLICT (store) DO UPDATE SET version = excluded.version`;
      ran += 1;
    }).catch((error: unknown) => {
      throw stepFailed(store, step, error);
    });
  }
  return ran;
}

/** The schema's shared pool (client.ts, poolFor) with `store` brought to its last step; let go again when a step fails. */
export async function migratedPool(
  url: string,
  schema: string,
  store: string,
  steps: readonly PostgresStep[],
  options?: PostgresOptions,
): Promise<PostgresPool> {
  const pool = poolFor(url, schema, options);
  try {
    await migrate(pool.sql, schema, store, steps);
  } catch (error) {
    await pool.release();
    throw error;
  }
  return pool;
}
