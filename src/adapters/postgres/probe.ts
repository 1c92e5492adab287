import postgres from 'postgres';
import { BackendRefusal } from '../../support/operator-errors.js';

/** The oldest PostgreSQL the service runs on: the oldest major release its project still supports. */
export const MINIMUM_SERVER_VERSION = 14;

/**
 * Resolves once the PostgreSQL server at `url` let the service in and runs version 14 or newer; rejects otherwise
 * (a BackendRefusal for a server too old). The driver connects lazily, so a wrong host or a refused password
 * would otherwise pass start-up and fail on every use.
 */
export async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const sql = postgres(url, { max: 1, connect_timeout: Math.ceil(timeoutMs / 1000), onnotice: () => undefined });
  try {
    const [row] = await sql<{ server_version_num: string }[]>`SHOW server_version_num`;
    const major = Math.floor(Number(row!.server_version_num) / 10_000);
    if (major < MINIMUM_SERVER_VERSION)
      throw new BackendRefusal(
        `runs version ${major}; the service needs PostgreSQL ${MINIMUM_SERVER_VERSION} or newer; upgrade the server`,
      );
  } finally {
    await sql.end({ timeout: 1 });
  }
}
