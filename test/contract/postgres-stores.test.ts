import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresAccountStore } from '../../src/adapters/postgres/account-store.js';
import { PostgresCatalogueStore } from '../../src/adapters/postgres/catalogue-store.js';
import { poolFor } from '../../src/adapters/postgres/client.js';
import { PostgresWrappedKeyStore } from '../../src/adapters/postgres/data-key-store.js';
import { PostgresIdempotencyStore } from '../../src/adapters/postgres/idempotency-store.js';
import { PostgresKeyStore } from '../../src/adapters/postgres/key-store.js';
import { KEYS_STEPS } from '../../src/adapters/postgres/keys-schema.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { mintKey } from '../../src/domain/api-keys.js';
import { KeyCache } from '../../src/http/key-cache.js';
import { eventually } from '../support/eventually.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { tempDir } from '../support/temp-dir.js';
import { accountPlanContract } from './account-plan.contract.js';
import { accountStoreContract } from './account-store.contract.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';
import { dataKeyStoreContract, wrappedDataKeys, wrappedKeyStoreContract } from './data-key-store.contract.js';
import { idempotencyStoreContract } from './idempotency-store.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { twoFactorStoreContract } from './two-factor-store.contract.js';

const missing = postgresBinDir === undefined;
const shared = sharedPostgres();
afterAll(() => shared.stopShared());

/** Each test's stores in a schema of their own, on the file's one database. */
let schemas = 0;
const newSchema = () => `stores_${++schemas}`;

/** A fixture whose store `open` makes on a fresh schema, and makes again on the same schema to reopen. */
async function reopenable<S extends { close(): Promise<void> }>(open: (url: string, schema: string) => Promise<S>) {
  const [url, schema] = [await shared.database(), newSchema()];
  const fixture = {
    url,
    schema,
    store: await open(url, schema),
    async reopen() {
      await fixture.store.close();
      fixture.store = await open(url, schema);
    },
    cleanup: () => fixture.store.close(),
  };
  return fixture;
}

dataKeyStoreContract(
  'postgres, wrapped by a master key',
  async () => {
    const dir = tempDir();
    const fixture = await reopenable(async (url, schema) =>
      wrappedDataKeys(await PostgresWrappedKeyStore.connect(url, schema), join(dir.path, 'master.key')),
    );
    return {
      ...fixture,
      get store() {
        return fixture.store;
      },
      async cleanup() {
        await fixture.cleanup();
        dir.cleanup();
      },
    };
  },
  missing,
);

wrappedKeyStoreContract('postgres', () => reopenable(PostgresWrappedKeyStore.connect), missing);
idempotencyStoreContract('postgres', () => reopenable(PostgresIdempotencyStore.connect), missing);
accountStoreContract('postgres', () => reopenable(PostgresAccountStore.connect), missing);
accountPlanContract('postgres', () => reopenable(PostgresAccountStore.connect), missing);
twoFactorStoreContract('postgres', () => reopenable(PostgresAccountStore.connect), missing);
catalogueStoreContract(
  'postgres',
  async () => {
    const fixture = await reopenable(PostgresCatalogueStore.connect);
    return { ...fixture, another: () => PostgresCatalogueStore.connect(fixture.url, fixture.schema, { max: 1 }) };
  },
  missing,
);

keyStoreContract(
  'postgres',
  async () => {
    const fixture = await reopenable(PostgresKeyStore.connect);
    return {
      ...fixture,
      get store() {
        return fixture.store;
      },
      // The account store reads the same schema through its own use of the pool, as the server's does.
      async activity() {
        const accounts = await PostgresAccountStore.connect(fixture.url, fixture.schema);
        try {
          return await accounts.activity(ACCOUNT_ID, 100);
        } finally {
          await accounts.close();
        }
      },
    };
  },
  missing,
);

describe.skipIf(missing)('postgres stores shared by replicas', () => {
  /** `count` stores on one schema, each on a pool of its own, as replicas would be. */
  async function replicas<S>(count: number, open: (url: string, schema: string, options: { max: number }) => Promise<S>) {
    const [url, schema] = [await shared.database(), newSchema()];
    return Promise.all(Array.from({ length: count }, () => open(url, schema, { max: 2 })));
  }

  it('lets exactly one of replicas racing for one idempotency key claim it; the others find it in use', async () => {
    const stores = await replicas(6, PostgresIdempotencyStore.connect);
    const now = new Date();
    for (let round = 0; round < 5; round += 1) {
      const request = { key: `key-${round}`, fingerprint: 'f', now, leaseMs: 30_000, ttlMs: 86_400_000 };
      const claims = await Promise.all(stores.flatMap((store) => [store.claim(request), store.claim(request)]));
      expect(claims.filter((claim) => claim.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((claim) => claim.outcome === 'in_use')).toHaveLength(claims.length - 1);
    }
    await Promise.all(stores.map((store) => store.close()));
  });

  it('gives replicas racing to make one subject key, or one secret, the same blob', async () => {
    const stores = await replicas(6, PostgresWrappedKeyStore.connect);
    await stores[0]!.recordMasterKeyId('0011223344556677');
    let made = 0;
    const fresh = () => {
      made += 1;
      return Buffer.from(`blob-${made}`);
    };
    const blobs = await Promise.all(stores.flatMap((store) => [store.keyFor('subject-1', fresh), store.secret('hmac', fresh)]));
    const keys = blobs.filter((_, i) => i % 2 === 0);
    const secrets = blobs.filter((_, i) => i % 2 === 1);
    expect(new Set(keys.map(String)).size).toBe(1);
    expect(new Set(secrets.map(String)).size).toBe(1);
    expect(await stores[0]!.find('subject-1')).toEqual(keys[0]);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('records a new master key only after a blob another replica is making with the old one committed', async () => {
    const [recorder, maker] = await replicas(2, PostgresWrappedKeyStore.connect);
    const url = await shared.database();
    const schema = recorder!.location.split(' ').at(-1)!;
    const [oldId, newId] = ['0011223344556677', '8899aabbccddeeff'];
    const withOld = async () =>
      (await recorder!.list('subject', undefined, 100)).filter(({ blob }) => blob.toString('hex') === oldId).map(({ name }) => name);
    await recorder!.recordMasterKeyId(oldId);
    // Another connection holds an uncommitted row for the subject: the maker, having read the old id, waits on it.
    const direct = () => postgres(url, { max: 1, onnotice: () => undefined });
    const [holder, watcher] = [direct(), direct()];
    const waiting = async (n: number) => {
      const [row] = await watcher<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      return row!.n >= n ? true : undefined;
    };
    let release!: () => void;
    let inserted!: () => void;
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const held = holder.begin(async (tx) => {
      await tx.unsafe(`INSERT INTO ${schema}.data_keys (subject_id, key, created_at) VALUES ('sub_1', '\\x00', 'now')`);
      inserted();
      await new Promise<void>((resolve) => (release = resolve));
      throw new Error('rolled back');
    });
    await insertedRow;
    const making = maker!.keyFor('sub_1', (id) => Buffer.from(id, 'hex'));
    await eventually(() => waiting(1));
    let recorded = false;
    const recording = recorder!.recordMasterKeyId(newId).then(() => (recorded = true));
    // The recorder waits for the maker's lock on the master key record (with no fence, it would be done already).
    await eventually(async () => (recorded ? true : waiting(2)));
    expect(recorded).toBe(false);
    release();
    await held.catch(() => undefined);
    await recording;
    // Stored before the new id counts: a pass over the store from now on sees it (and rewraps it).
    expect(await withOld()).toEqual(['sub_1']);
    expect(await making).toEqual(Buffer.from(oldId, 'hex'));
    await Promise.all([holder.end(), watcher.end(), recorder!.close(), maker!.close()]);
  });

  it('refuses, through the key cache, a key another replica revoked: its change moves this store’s version', async () => {
    const [url, schema] = [await shared.database(), newSchema()];
    const [here, there] = [
      await PostgresKeyStore.connect(url, schema, { max: 1 }),
      await PostgresKeyStore.connect(url, schema, { max: 1 }),
    ];
    const { raw, record } = mintKey({ name: 'replicas', environment: 'test', type: 'sk', scopes: ['nature:read'] }, new Date());
    await there.insert(record);
    const cache = new KeyCache(here);
    await eventually(async () => (here.version() === undefined ? undefined : true));
    expect((await cache.find(raw))?.revoked_at).toBeNull();
    await there.revoke(record.id, new Date().toISOString(), 'revoked');
    // Until its version moves the cache answers what it found; then it asks again, and finds the key revoked.
    await eventually(async () => (cache.cached(raw) === undefined ? true : undefined));
    expect((await cache.find(raw))?.revoked_at).not.toBeNull();
    await Promise.all([here.close(), there.close()]);
  });

  it('makes the keys schema once when replicas open its key and account stores together', async () => {
    const [url, schema] = [await shared.database(), newSchema()];
    const stores = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? PostgresKeyStore.connect(url, schema, { max: 1 }) : PostgresAccountStore.connect(url, schema, { max: 1 }),
      ),
    );
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    const versions = await sql.unsafe(`SELECT store, version FROM ${schema}._versions`);
    expect([...versions]).toEqual([{ store: 'keys', version: KEYS_STEPS.at(-1)!.version }]);
    await sql.end();
    await Promise.all(stores.map((store) => store.close()));
  });
});

describe.skipIf(missing)('postgres pools', () => {
  it('gives the stores of one URL and schema one pool, ended when the last of them lets it go', async () => {
    const [url, schema] = [await shared.database(), newSchema()];
    const [first, second, other] = [poolFor(url, schema), poolFor(url, schema), poolFor(url, newSchema())];
    expect(second.sql).toBe(first.sql);
    expect(other.sql).not.toBe(first.sql);
    await first.release();
    await first.release(); // a second release by the same user changes nothing
    expect(await second.sql`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    await second.release();
    await expect(second.sql`SELECT 1`).rejects.toThrow();
    const again = poolFor(url, schema);
    expect(again.sql).not.toBe(first.sql);
    await Promise.all([again.release(), other.release()]);
  });
});
