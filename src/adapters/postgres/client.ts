import postgres from 'postgres';
import { connectionOptionsOf } from './connection-options.js';
import { hostsOf, multiHostConnecting } from './hosts.js';

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
  /** Connections in the pool; appends hold one each while they wait for the log's lock. */
  max?: number;
  /** POSTGRES_PASSWORD_FILE: the password, when it is not in the URL. */
  passwordFile?: string;
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
