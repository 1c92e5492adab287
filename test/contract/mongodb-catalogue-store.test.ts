import { randomUUID } from 'node:crypto';
import { MongoDBContainer } from '@testcontainers/mongodb';
import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { MongoCatalogueStore } from '../../src/adapters/mongodb/catalogue-store.js';
import { serverTarget } from '../support/backend-servers.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';

// As mongodb.test.ts: MONGODB_URL, else a container when Docker answers, else skipped loudly.
const target = await serverTarget('MongoDB', 'MONGODB_URL', async () => {
  const container = await new MongoDBContainer('mongo:8.0.13').start();
  return { url: `${container.getConnectionString()}?directConnection=true`, container };
});
const settings = () => ({ url: target.url!, timeoutMs: 10_000, allowWeakWrites: false });
afterAll(async () => {
  if (target.url !== undefined) await target.stop();
});

catalogueStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_catalogue_${randomUUID().slice(0, 8)}`;
    const store = await MongoCatalogueStore.connect(settings(), database);
    return {
      store,
      another: () => MongoCatalogueStore.connect(settings(), database),
      async cleanup() {
        await store.close();
        const client = await new MongoClient(target.url!).connect();
        await client.db(database).dropDatabase();
        await client.close();
      },
    };
  },
  target.url === undefined,
);
