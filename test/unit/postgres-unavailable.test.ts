import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { isPostgresUnavailable } from '../../src/adapters/postgres/unavailable.js';

const serverError = (code: string) => Object.assign(new postgres.PostgresError(`server said ${code}`), { code });
const connectionError = (code: string) => Object.assign(new Error(`write ${code} 127.0.0.1:5432`), { code });

describe('which PostgreSQL errors mean "not now" (503, worth a retry)', () => {
  it('counts a server shutting down, recovering, failing over (a standby that cannot write) or full, and lost connections', () => {
    for (const code of ['57P01', '57P02', '57P03', '25006', '53300', '08006', '08001'])
      expect(isPostgresUnavailable(serverError(code))).toBe(true);
    for (const code of ['CONNECTION_CLOSED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET'])
      expect(isPostgresUnavailable(connectionError(code))).toBe(true);
  });

  it('leaves out what a retry would not mend: a constraint, a syntax error, a privilege, a closed pool', () => {
    for (const code of ['23505', '42601', '42501']) expect(isPostgresUnavailable(serverError(code))).toBe(false);
    expect(isPostgresUnavailable(connectionError('CONNECTION_ENDED'))).toBe(false);
    expect(isPostgresUnavailable(new Error('boom'))).toBe(false);
    expect(isPostgresUnavailable(undefined)).toBe(false);
  });
});
