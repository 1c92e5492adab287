import { existsSync } from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.js';
import { type PostgresCluster, postgresBinDir, sharedPostgres, startPostgresCluster } from '../support/postgres-cluster.js';
import { eventStoreContract } from './event-store.contract.js';

const missing = postgresBinDir === undefined;
const shared = sharedPostgres();
afterAll(() => shared.stopShared());

/** Each test's log in a schema of its own, on the file's one database. */
let schemas = 0;
eventStoreContract(
  'postgres',
  async () => {
    schemas += 1;
    const store = new PostgresEventStore(await shared.database(), `contract_${schemas}`);
    return { store, cleanup: () => store.close() };
  },
  missing,
);

describe.skipIf(missing)('postgresql test cluster', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('serves a fresh database per suite, each apart from the others', async () => {
    const [first, second] = [await cluster.createDatabase(), await cluster.createDatabase()];
    expect(first).not.toBe(second);
    const a = postgres(first, { max: 1, onnotice: () => undefined });
    const b = postgres(second, { max: 1, onnotice: () => undefined });
    await a`CREATE TABLE things (n int)`;
    await a`INSERT INTO things VALUES (1)`;
    expect(await a`SELECT n FROM things`).toEqual([{ n: 1 }]);
    await expect(b`SELECT n FROM things`).rejects.toThrow(/does not exist/);
    await Promise.all([a.end(), b.end()]);
  });

  it('stops the server and removes its folder', async () => {
    const other = await startPostgresCluster();
    const url = await other.createDatabase();
    const client = postgres(url, { max: 1 });
    const [row] = await client`SHOW data_directory`;
    await client.end();
    const dir = row!.data_directory as string;
    expect(existsSync(dir)).toBe(true);
    await other.stop();
    expect(existsSync(dir)).toBe(false);
    const gone = postgres(url, { max: 1, connect_timeout: 2 });
    await expect(gone`SELECT 1`).rejects.toThrow();
    await gone.end();
  }, 60_000);
});
