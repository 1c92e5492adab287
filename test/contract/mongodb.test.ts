import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MongoDBContainer } from '@testcontainers/mongodb';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { MongoAccountStore } from '../../src/adapters/mongodb/account-store.js';
import { MongoCatalogueStore } from '../../src/adapters/mongodb/catalogue-store.js';
import { connectMongo } from '../../src/adapters/mongodb/client.js';
import { MongoWrappedKeyStore } from '../../src/adapters/mongodb/data-key-store.js';
import { MongoIdempotencyStore } from '../../src/adapters/mongodb/idempotency-store.js';
import { MongoKeyStore } from '../../src/adapters/mongodb/key-store.js';
import { MongoReadModelStore } from '../../src/adapters/mongodb/read-model-store.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { hashKey, mintKey } from '../../src/domain/api-keys.js';
import { serverTarget } from '../support/backend-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { accountPlanContract } from './account-plan.contract.js';
import { accountStoreContract } from './account-store.contract.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';
import { dataKeyStoreContract, wrappedDataKeys, wrappedKeyStoreContract } from './data-key-store.contract.js';
import { idempotencyStoreContract } from './idempotency-store.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { readModelStoreContract } from './read-model-store.contract.js';
import { twoFactorStoreContract } from './two-factor-store.contract.js';

// The version docker-compose.yml runs; the module starts it as a single-member replica set.
const target = await serverTarget('MongoDB', 'MONGODB_URL', async () => {
  const container = await new MongoDBContainer('mongo:8.0.13').start();
  return { url: `${container.getConnectionString()}?directConnection=true`, container };
});
/** The stores' settings for the server under test: as in production, a standalone server is refused. */
const settings = () => ({ url: target.url!, timeoutMs: 10_000, allowWeakWrites: false });
afterAll(async () => {
  if (target.url !== undefined) await target.stop();
});

async function dropDatabase(database: string): Promise<void> {
  const client = await new MongoClient(target.url!).connect();
  await client.db(database).dropDatabase();
  await client.close();
}

const nothingToRebuild = { all: { collections: [], checkpoints: [] }, usage: { collections: [], checkpoints: [] } };

// Each test gets its own database, dropped afterwards.
readModelStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const store = await MongoReadModelStore.connect(settings(), database, {
      indexedFields: [{ collection: 'things', field: 'tag' }],
      rebuilds: nothingToRebuild,
    });
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
  `mongodb, wrapped by a master key (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const dir = tempDir();
    const open = async () => wrappedDataKeys(await MongoWrappedKeyStore.connect(settings(), database), join(dir.path, 'master.key'));
    const fixture = {
      store: await open(),
      reopen: async () => {
        await fixture.store.close();
        fixture.store = await open();
      },
      cleanup: async () => {
        await fixture.store.close();
        await dropDatabase(database);
        dir.cleanup();
      },
    };
    return fixture;
  },
  target.url === undefined,
);

wrappedKeyStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const fixture = {
      store: await MongoWrappedKeyStore.connect(settings(), database),
      reopen: async () => {
        await fixture.store.close();
        fixture.store = await MongoWrappedKeyStore.connect(settings(), database);
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
      store: await MongoIdempotencyStore.connect(settings(), database),
      reopen: async () => {
        await fixture.store.close();
        fixture.store = await MongoIdempotencyStore.connect(settings(), database);
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
        await dropDatabase(database);
      },
    };
  },
  target.url === undefined,
);

keyStoreContract(
  `mongodb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const fixture = {
      store: await MongoKeyStore.connect(settings(), database),
      async activity() {
        const accounts = await MongoAccountStore.connect(settings(), database);
        try {
          return await accounts.activity(ACCOUNT_ID, 100);
        } finally {
          await accounts.close();
        }
      },
      reopen: async () => {
        await fixture.store.close();
        fixture.store = await MongoKeyStore.connect(settings(), database);
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

/** A fresh database per test, dropped afterwards: the account store's, its plan's and its two-factor records'. */
async function mongoAccounts() {
  const database = `nature_contract_${randomUUID().slice(0, 8)}`;
  const fixture = {
    store: await MongoAccountStore.connect(settings(), database),
    reopen: async () => {
      await fixture.store.close();
      fixture.store = await MongoAccountStore.connect(settings(), database);
    },
    cleanup: async () => {
      await fixture.store.close();
      await dropDatabase(database);
    },
  };
  return fixture;
}
accountStoreContract(`mongodb (${target.url !== undefined ? target.source : 'skipped'})`, mongoAccounts, target.url === undefined);
accountPlanContract(`mongodb (${target.url !== undefined ? target.source : 'skipped'})`, mongoAccounts, target.url === undefined);
twoFactorStoreContract(`mongodb (${target.url !== undefined ? target.source : 'skipped'})`, mongoAccounts, target.url === undefined);

describe.skipIf(target.url === undefined)('mongodb key store after a crash in the middle of a rotation', () => {
  /** The store's collection as a rotation left it when the process died after `steps` of its writes. */
  async function rotationCutAfter(steps: 1 | 2) {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const store = await MongoKeyStore.connect(settings(), database);
    const old = mintKey({ name: 'n', environment: 'live', type: 'sk', scopes: ['nature:read'] }, new Date());
    const next = mintKey(old.record, new Date(), old.record.id);
    await store.insert(old.record);
    const client = await new MongoClient(target.url!).connect();
    const keys = client.db(database).collection<{ _id: string } & Record<string, unknown>>('api_keys');
    const { id, ...rest } = next.record;
    await keys.insertOne({ _id: id, ...rest, pending: true });
    if (steps === 2)
      await keys.updateOne(
        { _id: old.record.id },
        { $set: { revoked_at: next.record.created_at, revoked_reason: 'rotated', rotated_to: id } },
      );
    await client.close();
    return {
      store,
      old,
      next,
      cleanup: async () => {
        await store.close();
        await dropDatabase(database);
      },
    };
  }

  it('keeps the old key working and the replacement unknown when the old key was not yet revoked', async () => {
    const { store, old, next, cleanup } = await rotationCutAfter(1);
    expect(await store.findByHash(hashKey(old.raw))).toMatchObject({ revoked_at: null });
    expect(await store.findByHash(hashKey(next.raw))).toBeUndefined();
    expect((await store.list()).map((record) => record.id)).toEqual([old.record.id]);
    await cleanup();
  });

  it('counts the replacement once the old key names it, and lets it be revoked', async () => {
    const { store, old, next, cleanup } = await rotationCutAfter(2);
    expect(await store.findByHash(hashKey(old.raw))).toMatchObject({ revoked_reason: 'rotated' });
    expect(await store.findByHash(hashKey(next.raw))).toEqual(next.record);
    expect(await store.revoke(next.record.id, new Date().toISOString(), 'revoked')).toMatchObject({ revoked_reason: 'revoked' });
    await cleanup();
  });
});

describe.skipIf(target.url === undefined)('mongodb deployment', () => {
  it('is one the stores commit on in transactions (a replica set), with every write majority-acknowledged', async () => {
    const connection = await connectMongo(settings());
    try {
      expect(connection.deployment).toEqual({ transactions: true });
      const db = connection.db(`nature_contract_${randomUUID().slice(0, 8)}`);
      expect(db.writeConcern).toMatchObject({ w: 'majority', journal: true });
      expect(db.readConcern?.level).toBe('majority');
    } finally {
      await connection.release();
    }
  });
});

describe.skipIf(target.url === undefined)('mongodb read models, upgraded by numbered steps', () => {
  const rebuilds = { all: { collections: ['things'], checkpoints: ['things'] }, usage: { collections: [], checkpoints: [] } };

  it('runs each step once with two replicas starting together, the versions document at the last; a read as-is then passes', async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    const client = await new MongoClient(target.url!).connect();
    try {
      // Read models of before the numbered steps: unsealed, unmarked.
      const db = client.db(database);
      await db.collection<{ _id: string; tag: string }>('things').insertOne({ _id: 'thg_1', tag: 'plain' });
      await db.collection<{ _id: string; position: string }>('_checkpoints').insertOne({ _id: 'things', position: '7' });
      const layout = { indexedFields: [], rebuilds };
      const stores = await Promise.all([1, 2].map(() => MongoReadModelStore.connect(settings(), database, layout)));
      expect(await stores[0]!.get('things', 'thg_1')).toBeUndefined();
      expect(await stores[0]!.checkpoint('things')).toBeUndefined();
      expect(await db.collection<{ _id: string }>('_versions').findOne({ _id: 'read-models' })).toEqual({
        _id: 'read-models',
        version: 4,
      });
      const asIs = await MongoReadModelStore.connect(settings(), database, layout, true);
      for (const store of [...stores, asIs]) await store.close();
    } finally {
      await client.db(database).dropDatabase();
      await client.close();
    }
  });

  it('opened as-is before any step ran, refuses', async () => {
    const database = `nature_contract_${randomUUID().slice(0, 8)}`;
    await expect(MongoReadModelStore.connect(settings(), database, { indexedFields: [], rebuilds }, true)).rejects.toThrow(
      /data version 0, not 4/,
    );
    await dropDatabase(database);
  });
});
