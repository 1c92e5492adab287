import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/adapters/postgres/client.js';
import { isPostgresUnavailable } from '../../src/adapters/postgres/unavailable.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';

const shared = sharedPostgres();
afterAll(() => shared.stopShared());

/**
 * The driver as patched (patches/postgres+3.4.9.patch): unpatched, a connection that dies under a transaction
 * throws from a timer, out of every caller's reach, and the process ends (porsager/postgres#1208).
 */
describe.skipIf(postgresBinDir === undefined)('a PostgreSQL connection lost under a transaction', () => {
  it('fails that transaction as unavailable, and the pool’s one connection serves the next', async () => {
    const url = await shared.database();
    const sql = openPostgres(url, 'public', { max: 1 });
    const admin = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      let pid: number | undefined;
      const transaction = sql.begin(async (tx) => {
        pid = (await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
        await tx`SELECT pg_sleep(30)`;
      });
      const failure = transaction.then(
        () => undefined,
        (error: unknown) => error,
      );
      while (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      await admin`SELECT pg_terminate_backend(${pid})`;
      expect(isPostgresUnavailable(await failure), String(await failure)).toBe(true);
      for (let n = 0; n < 3; n++) expect((await sql`SELECT ${n}::int AS n`)[0]).toEqual({ n });
      await sql.begin((tx) => tx`SELECT 1`);
    } finally {
      await sql.end({ timeout: 5 });
      await admin.end();
    }
  }, 60_000);
});
