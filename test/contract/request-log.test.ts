import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MongoDBContainer } from '@testcontainers/mongodb';
import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { MongoRequestLogStore } from '../../src/adapters/mongodb/request-log-store.js';
import { PostgresRequestLogStore } from '../../src/adapters/postgres/request-log-store.js';
import { SqliteRequestLogStore } from '../../src/adapters/sqlite/request-log-store.js';
import type { RequestLogStore } from '../../src/ports/request-log.js';
import { serverTarget } from '../support/backend-servers.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { tempDir } from '../support/temp-dir.js';
import { requestLogStoreContract } from './request-log-store.contract.js';

/** A fixture whose `open` makes the store, and makes it again on the same data to reopen. */
async function reopenable(open: () => Promise<RequestLogStore>, dropped: () => Promise<void> = async () => {}) {
  const fixture = {
    store: await open(),
    async reopen() {
      await fixture.store.close();
      fixture.store = await open();
    },
    async cleanup() {
      await fixture.store.close();
      await dropped();
    },
  };
  return fixture;
}

requestLogStoreContract('sqlite', async () => {
  const dir = tempDir();
  return reopenable(
    async () => new SqliteRequestLogStore(join(dir.path, 'sandbox.requests.db'), 'NORMAL'),
    async () => dir.cleanup(),
  );
});

const shared = sharedPostgres();
afterAll(() => shared.stopShared());
let schemas = 0;
requestLogStoreContract(
  'postgres',
  async () => {
    const [url, schema] = [await shared.database(), `requests_${++schemas}`];
    return reopenable(() => PostgresRequestLogStore.connect(url, schema));
  },
  postgresBinDir === undefined,
);

// The version docker-compose.yml runs; the module starts it as a single-member replica set.
const target = await serverTarget('MongoDB', 'MONGODB_URL', async () => {
  const container = await new MongoDBContainer('mongo:8.0.13').start();
  return { url: `${container.getConnectionString()}?directConnection=true`, container };
});
afterAll(async () => {
  if (target.url !== undefined) await target.stop();
});
requestLogStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const settings = { url: target.url!, timeoutMs: 10_000, allowWeakWrites: false };
    return reopenable(
      () => MongoRequestLogStore.connect(settings, database, 30 * 86_400_000),
      async () => {
        const client = await new MongoClient(target.url!).connect();
        await client.db(database).dropDatabase();
        await client.close();
      },
    );
  },
  target.url === undefined,
);
