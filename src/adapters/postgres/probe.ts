import postgres from 'postgres';
import type { PostgresAccess } from '../../settings/config.js';
import { BackendRefusal } from '../../support/operator-errors.js';
import { connectionOptionsOf } from './connection-options.js';

/** The oldest PostgreSQL the service runs on: the oldest major release its project still supports. */
export const MINIMUM_SERVER_VERSION = 14;

/**
 * Resolves once the PostgreSQL server `access` names let the service in, runs version 14 or newer and lets its role
 * make and change the tables of `schemas`; rejects otherwise (a BackendRefusal for what the operator fixes on the
 * server). The driver connects lazily, so a wrong host, a refused password or a missing GRANT would otherwise
 * pass start-up and fail on first use.
 */
export async function probePostgres(access: PostgresAccess, schemas: readonly string[], timeoutMs: number): Promise<void> {
  const { url, ...options } = connectionOptionsOf(access);
  const sql = postgres(url, { ...options, max: 1, connect_timeout: Math.ceil(timeoutMs / 1000), onnotice: () => undefined });
  try {
    const [row] = await sql<{ server_version_num: string }[]>`SHOW server_version_num`.catch((error: unknown) => {
      throw refusalOf(error, access) ?? error;
    });
    checkServerVersion(row!.server_version_num);
    await checkPrivileges(sql, schemas);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Throws a BackendRefusal when `serverVersionNum` (as `SHOW server_version_num` gives it: 160004) is below 14. */
export function checkServerVersion(serverVersionNum: string): void {
  const major = Math.floor(Number(serverVersionNum) / 10_000);
  if (!(major >= MINIMUM_SERVER_VERSION))
    throw new BackendRefusal(`runs version ${major}; the service needs PostgreSQL ${MINIMUM_SERVER_VERSION} or newer; upgrade the server`);
}

/**
 * What the service's role does to the database: make its schemas (CREATE SCHEMA IF NOT EXISTS checks the database's
 * CREATE privilege even when the schema exists), make tables in them, and change the tables it made (each
 * migration step). A schema or table of another role, as a restore run as a superuser leaves, is named.
 */
async function checkPrivileges(sql: postgres.Sql, schemas: readonly string[]): Promise<void> {
  const [role] = await sql<{ user: string; database: string; create: boolean }[]>`
    SELECT current_user AS user, current_database() AS database, has_database_privilege(current_database(), 'CREATE') AS create`;
  const { user, database } = role!;
  if (!role!.create)
    throw new BackendRefusal(
      `does not let role "${user}" create schemas in database "${database}": GRANT CREATE ON DATABASE ${database} TO ${user}`,
    );
  const [schema] = await sql<{ name: string }[]>`
    SELECT nspname AS name FROM pg_namespace
     WHERE nspname = ANY(${schemas as string[]}) AND NOT has_schema_privilege(oid, 'USAGE, CREATE')`;
  if (schema !== undefined)
    throw new BackendRefusal(`does not let role "${user}" use schema ${schema.name}: ALTER SCHEMA ${schema.name} OWNER TO ${user}`);
  const [table] = await sql<{ name: string; owner: string }[]>`
    SELECT n.nspname || '.' || c.relname AS name, pg_get_userbyid(c.relowner) AS owner
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = ANY(${schemas as string[]}) AND c.relkind IN ('r', 'p', 'S') AND NOT pg_has_role(c.relowner, 'USAGE')
     ORDER BY 1 LIMIT 1`;
  if (table !== undefined)
    throw new BackendRefusal(
      `has table ${table.name} of role "${table.owner}", which role "${user}" may not change: ALTER TABLE ${table.name} OWNER TO ${user} (restore with pg_restore --no-owner --role=${user})`,
    );
}

/** Node's codes for a server certificate that does not verify: its chain, or its names against the host. */
const CERTIFICATE_CODES = /^(ERR_TLS_CERT_ALTNAME_INVALID|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_.*|CERT_.*)$/;

/** The refusal an error at login means (credentials, database, certificate), or undefined for one that is no refusal. */
function refusalOf(error: unknown, access: PostgresAccess): BackendRefusal | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const cause = (error as Error).message;
  const where = access.passwordFile === undefined ? 'POSTGRES_URL' : 'POSTGRES_URL and POSTGRES_PASSWORD_FILE';
  if (code === '28P01' || code === '28000')
    return new BackendRefusal(`refused the login (${cause}): check the user and password in ${where}`);
  if (code === '3D000') return new BackendRefusal(`has no such database (${cause}): check the database in POSTGRES_URL`);
  // Node's words when the server answers the TLS request with "no" and the driver goes on with its handshake.
  if (code === 'ECONNRESET' && cause.includes('before secure TLS connection'))
    return new BackendRefusal(`does not speak TLS (${cause}): turn ssl on on the server, or check sslmode in POSTGRES_URL`);
  if (typeof code === 'string' && CERTIFICATE_CODES.test(code))
    return new BackendRefusal(
      `presented a certificate this service does not trust (${cause}): check sslrootcert and the host name in POSTGRES_URL`,
    );
  return undefined;
}
