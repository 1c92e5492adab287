import postgres from 'postgres';
import { BackendTimeoutError, within } from '../../support/backend-timeout.js';
import { NO_WRITABLE_SERVER } from './hosts.js';

/** The code of the error a statement meets when the server has not answered it in time (answeredWithin). */
const NO_ANSWER = 'NATURE_POSTGRES_NO_ANSWER';

/** The driver's codes for a connection lost, never made in time, or refused by the network; no server writable. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  NO_WRITABLE_SERVER,
  NO_ANSWER,
]);

/**
 * The server's SQLSTATEs for "not now": shutting down or crashed (57P01, 57P02), starting or recovering (57P03),
 * a standby that cannot write yet, as the old primary's connections meet after a failover (25006), and no
 * connection slot free (53300). Class 08 (connection exceptions) besides.
 */
const SERVER_CODES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '25006', '53300']);

/**
 * Whether a PostgreSQL error means the server does not answer now (down, restarting, failing over, the network),
 * so the same request may well succeed shortly: answered 503, not 500.
 */
export function isPostgresUnavailable(error: unknown): boolean {
  if (error instanceof postgres.PostgresError) return error.code.startsWith('08') || SERVER_CODES.has(error.code);
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && CONNECTION_CODES.has(code);
}

/** `work`, or an error coded NO_ANSWER (so unavailable: 503) once `timeoutMs` have passed without its answer. */
export async function answeredWithin<T>(timeoutMs: number, work: Promise<T>): Promise<T> {
  try {
    return await within(timeoutMs, work);
  } catch (error) {
    if (!(error instanceof BackendTimeoutError)) throw error;
    throw Object.assign(new Error(`PostgreSQL did not answer within ${timeoutMs} ms`), { code: NO_ANSWER });
  }
}
