import postgres from 'postgres';
import { connectionOptionsOf } from './connection-options.js';
import { hostsOf, multiHostConnecting } from './hosts.js';
import { answeredWithin } from './unavailable.js';

/** A connection pool to one schema (sandbox and production keep theirs apart), its SQL unqualified. */
export type Sql = postgres.Sql<{ bigint: bigint }>;
export type TransactionSql = postgres.TransactionSql<{ bigint: bigint }>;

/** A schema's name as the service makes them: safe to put in SQL text, which identifiers must be. */
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkedSchema(schema: string): string {
  if (!SCHEMA.test(schema)) throw new Error(`not a PostgreSQL schema name this service makes: ${JSON.stringify(schema)}`);
  return schema;
}

export interface PostgresOptions {
  /**
   * Connections in a pool of the store's own; appends hold one each while they wait for the log's lock. Without
   * it the store uses the process's shared pool for its URL and schema (poolFor).
   */
  max?: number;
  /** POSTGRES_PASSWORD_FILE: the password, when it is not in the URL. */
  passwordFile?: string;
  /** NATURE_BACKEND_TIMEOUT_MS: how long a request's statements may go unanswered (`answered`), 10 s unless said. */
  answerWithinMs?: number;
}

/**
 * A pool on `url` whose unqualified names resolve in `schema` (its search_path), reading int8 as bigint: the log's
 * positions and revisions are bigints. The server's notices (CREATE … IF NOT EXISTS that finds one) are not logged.
 * TLS and the password are as connectionOptionsOf reads them. A URL naming several hosts connects to the one that
 * accepts writes (hosts.ts), and through a failover.
 */
export function openPostgres(url: string, schema: string, { max = 10, passwordFile }: PostgresOptions = {}): Sql {
  const { url: bare, ...access } = connectionOptionsOf({ url, passwordFile });
  const hosts = hostsOf(bare);
  return postgres(bare, {
    ...access,
    max,
    types: { bigint: postgres.BigInt },
    connection: { search_path: checkedSchema(schema), application_name: 'nature-profile-api' },
    onnotice: () => undefined,
    ...(hosts && multiHostConnecting(bare, hosts, access)),
  });
}

/** A store's use of a pool: `release` ends it when no other store of the process still uses it. */
export interface PostgresPool {
  readonly sql: Sql;
  /**
   * `work` (a request's statement or transaction), or a failure that reads as "unavailable" (503) once the pool's
   * answerWithinMs has passed. Postgres.js 3.4.9 can leave a query unanswered for good after its connection was
   * lost (porsager/postgres#1193, #1195), and a primary whose synchronous standby is gone holds each COMMIT until
   * it comes back: the request is answered, and the work is left to finish or fail on its own.
   */
  answered<T>(work: Promise<T>): Promise<T>;
  release(): Promise<void>;
}

const DEFAULT_ANSWER_WITHIN_MS = 10_000;

/**
 * Connections in each shared pool. A process has at most three (each environment's schema, and `nature_keys`),
 * plus one listening connection per environment's log: 3 × 8 + 2 = 26, so four replicas fit under PostgreSQL's
 * default max_connections (100, 3 kept for superusers) with room for operator commands. More would not help one
 * process: appends wait for the log's lock one at a time, and one event loop keeps few statements in flight.
 */
export const SHARED_POOL_MAX = 8;

const sharedPools = new Map<string, { sql: Sql; users: number }>();

/**
 * The process's pool for `url` and `schema`, shared by every store of that schema (log, read models, idempotency,
 * data keys; or the API keys and accounts): opened by the first, ended when the last releases it. A pool's
 * search_path names its schema, so the schemas cannot share one. With `max`, a pool of the store's own (tests
 * that race several "replicas" inside one process).
 */
export function poolFor(url: string, schema: string, { max, passwordFile, answerWithinMs }: PostgresOptions = {}): PostgresPool {
  const bound = answerWithinMs ?? DEFAULT_ANSWER_WITHIN_MS;
  const answered = <T>(work: Promise<T>) => answeredWithin(bound, work);
  if (max !== undefined) {
    const sql = openPostgres(url, schema, { max, passwordFile });
    return { sql, answered, release: () => sql.end({ timeout: 5 }) };
  }
  const key = JSON.stringify([url, schema, passwordFile]);
  let entry = sharedPools.get(key);
  if (entry === undefined) {
    entry = { sql: openPostgres(url, schema, { max: SHARED_POOL_MAX, passwordFile }), users: 0 };
    sharedPools.set(key, entry);
  }
  const used = entry;
  used.users += 1;
  let released = false;
  return {
    sql: used.sql,
    answered,
    async release() {
      if (released) return;
      released = true;
      used.users -= 1;
      if (used.users > 0) return;
      if (sharedPools.get(key) === used) sharedPools.delete(key);
      await used.sql.end({ timeout: 5 });
    },
  };
}
