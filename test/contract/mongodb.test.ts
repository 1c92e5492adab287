import { randomUUID } from 'node:crypto';
import { MongoDBContainer } from '@testcontainers/mongodb';
import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { MongoDataKeyStore } from '../../src/adapters/mongodb/data-key-store.js';
import { MongoIdempotencyStore } from '../../src/adapters/mongodb/idempotency-store.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { serverTarget } from '../support/backend-servers.js';
import { dataKeyStoreContract } from './data-key-store.contract.js';
import { idempotencyStoreContract } from './idempotency-store.contract.js';
import { readModelStoreContract } from './read-model-store.contract.js';

const target = await serverTarget('MongoDB', 'MONGODB_URL', async () => {
  const container = await new MongoDBContainer('mongo:7').start();
  return { url: `${container.getConnectionString()}?directConnection=true`, container };
});
afterAll(async () => {
  if (target.url !== undefined) await target.stop();
});

async function dropDatabase(database: string): Promise<void> {
  const client = await new MongoClient(target.url!).connect();
  await client.db(database).dropDatabase();
  await client.close();
}

// Each test gets its own database, dropped afterwards.
readModelStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const store = await MongoReadModelStore.connect(target.url!, database, [{ collection: 'things', field: 'tag' }]);
    return {
      store,
      cleanup: async () => {
        await store.close();
        await dropDatabase(database);
      },
    };
  },
  target.url === undefined,
);

dataKeyStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const fixture = {
      store: await MongoDataKeyStore.connect(target.url!, database),
      reopen: async () => {
        await fixture.store.close();
        fixture.store = await MongoDataKeyStore.connect(target.url!, database);
      },
      cleanup: async () => {
        await fixture.store.close();
        await dropDatabase(database);
      },
    };
    return fixture;
  },
  target.url === undefined,
);

idempotencyStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const fixture = {
      store: await MongoIdempotencyStore.connect(target.url!, database),
      reopen: async () => {
        await fixture.store.close();
        fixture.store = await MongoIdempotencyStore.connect(target.url!, database);
      },
      cleanup: async () => {
        await fixture.store.close();
        await dropDatabase(database);
      },
    };
    return fixture;
  },
  target.url === undefined,
);
