import { existsSync } from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.js';
import { PostgresReadModelStore } from '../../src/adapters/postgres/read-model-store.js';
import { FencedOffError } from '../../src/ports/read-models.js';
import { type PostgresCluster, postgresBinDir, sharedPostgres, startPostgresCluster } from '../support/postgres-cluster.js';
import { eventStoreContract } from './event-store.contract.js';
import { readModelStoreContract } from './read-model-store.contract.js';

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

readModelStoreContract(
  'postgres',
  async () => {
    schemas += 1;
    const store = await PostgresReadModelStore.connect(await shared.database(), `contract_${schemas}`, [
      { collection: 'things', field: 'tag' },
    ]);
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

describe.skipIf(missing)('postgresql read models', () => {
  const things = [{ collection: 'things', field: 'tag' }];
  const listIndexes = async (url: string, schema: string) => {
    const client = postgres(url, { max: 1, onnotice: () => undefined });
    const rows = await client<{ indexname: string }[]>`
      SELECT indexname FROM pg_indexes WHERE schemaname = ${schema} AND tablename = 'documents' AND indexname LIKE '%\\_by\\_%'`;
    await client.end();
    return rows.map((row) => row.indexname).sort();
  };

  it('runs each step once with two replicas starting together, makes the list indexes, and drops those no list uses', async () => {
    const url = await shared.database();
    const schema = 'read_models_steps';
    const stores = await Promise.all([1, 2].map(() => PostgresReadModelStore.connect(url, schema, things)));
    const client = postgres(url, { max: 1, onnotice: () => undefined });
    expect(await client`SELECT store, version FROM ${client(schema)}._versions`).toEqual([{ store: 'read-models', version: 4 }]);
    await client.end();
    expect(await listIndexes(url, schema)).toEqual(['things_by_tag']);
    for (const store of stores) await store.close();
    const next = await PostgresReadModelStore.connect(url, schema, [{ collection: 'others', field: 'status' }]);
    expect(await listIndexes(url, schema)).toEqual(['others_by_status']);
    const asIs = await PostgresReadModelStore.connect(url, schema, [], { asIs: true });
    await Promise.all([next.close(), asIs.close()]);
  });

  it('opened as-is before any step ran, refuses', async () => {
    await expect(PostgresReadModelStore.connect(await shared.database(), 'read_models_never', things, { asIs: true })).rejects.toThrow(
      /data version 0, not 4/,
    );
  });

  it('keeps the keys of a document in the order written (callers read their metadata back as they sent it)', async () => {
    const store = await PostgresReadModelStore.connect(await shared.database(), 'read_models_order', things);
    const metadata = { zebra: '1', a: '2', mm: '3' };
    await store.commit('p', 1n, [{ collection: 'things', id: 'thg_o', doc: { tag: 'even', id: 'thg_o', metadata } }]);
    const read = await store.get('things', 'thg_o');
    expect(Object.keys(read!)).toEqual(['tag', 'id', 'metadata']);
    expect(Object.keys(read!.metadata as object)).toEqual(['zebra', 'a', 'mm']);
    await store.close();
  });

  it('checks the fence inside the commit: a commit that meets a takeover under way waits for it, then writes nothing', async () => {
    const url = await shared.database();
    const schema = 'read_models_fence';
    const store = await PostgresReadModelStore.connect(url, schema, things);
    const token = (await store.acquireLease('leader', 'replica-a', 60_000))!;
    const other = postgres(url, { max: 2, onnotice: () => undefined });
    // Another replica's takeover, its UPDATE of the lease done but not yet committed.
    let commitTakeover!: () => void;
    const takeover = other.begin(async (tx) => {
      await tx`UPDATE ${tx(schema)}.leases SET holder = 'replica-b', token = token + 1 WHERE name = 'leader'`;
      await new Promise<void>((resolve) => {
        commitTakeover = resolve;
      });
    });
    await expect.poll(() => commitTakeover, { timeout: 5000, interval: 20 }).toBeTypeOf('function');
    const fenced = store.commit('p', 2n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', by: 'deposed a' } }], {
      lease: 'leader',
      token,
    });
    fenced.catch(() => undefined);
    // The commit waits on the lease row's lock, not on anything else.
    const waiting = async () =>
      (
        await other<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE '%FROM leases WHERE name%'`
      )[0]!.n;
    await expect.poll(waiting, { timeout: 5000, interval: 20 }).toBe(1);
    commitTakeover();
    await takeover;
    await expect(fenced).rejects.toBeInstanceOf(FencedOffError);
    expect(await store.get('things', 'thg_a')).toBeUndefined();
    expect(await store.checkpoint('p')).toBeUndefined();
    await Promise.all([store.close(), other.end()]);
  });
});
