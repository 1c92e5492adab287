import { randomUUID } from 'node:crypto';
import { EventStoreDBClient } from '@eventstore/db-client';
import { GenericContainer, Wait } from 'testcontainers';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventStoreDbEventStore } from '../../src/adapters/eventstoredb/event-store.js';
import { readAllFiltered } from '../../src/adapters/eventstoredb/filtered-read.js';
import { probeEventStoreDb } from '../../src/adapters/eventstoredb/probe.js';
import { hasCheckpointFix, serverVersion } from '../../src/adapters/eventstoredb/server-version.js';
import { type NewEvent, type RecordedEvent, StreamDeletedError } from '../../src/ports/event-store.js';
import { serverTarget } from '../support/backend-servers.js';
import { eventStoreContract } from './event-store.contract.js';

// The image docker-compose.yml runs.
const target = await serverTarget('EventStoreDB', 'EVENTSTORE_URL', async () => {
  const container = await new GenericContainer('eventstore/eventstore:24.10.14')
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_CLUSTER_SIZE: '1',
      EVENTSTORE_RUN_PROJECTIONS: 'None',
      EVENTSTORE_MEM_DB: 'true',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113))
    .start();
  return { url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`, container };
});
afterAll(async () => {
  if (target.url !== undefined) await target.stop();
});

const connect = (prefix: string) => EventStoreDbEventStore.connect({ url: target.url!, appendRetryMs: 20_000 }, prefix);

// Each test gets its own stream prefix, so tests share one server without seeing each other's events.
eventStoreContract(
  `eventstoredb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const run = randomUUID().slice(0, 8);
    const store = connect(`contract${run}.`);
    // The other environment of the same server, as production is sandbox's.
    const neighbour = connect(`neighbour${run}.`);
    return {
      store,
      neighbour,
      cleanup: async () => {
        await store.close();
        await neighbour.close();
      },
    };
  },
  target.url === undefined,
);

const event = (type = 'Happened'): NewEvent => ({ id: randomUUID(), type, data: { n: 1 }, metadata: {} });

describe.skipIf(target.url === undefined)(`EventStoreDB only (${target.url !== undefined ? target.source : 'skipped'})`, () => {
  let prefix: string;
  let store: EventStoreDbEventStore;
  let neighbour: EventStoreDbEventStore;
  let client: EventStoreDBClient;
  beforeEach(() => {
    const run = randomUUID().slice(0, 8);
    prefix = `only${run}.`;
    store = connect(prefix);
    neighbour = connect(`neighbour${run}.`);
    client = EventStoreDBClient.connectionString(target.url!);
  });
  afterEach(async () => {
    await Promise.all([store.close(), neighbour.close(), client.dispose()]);
  });

  it('runs a server version with the checkpoint fix, which the start-up probe reads and accepts', async () => {
    expect(hasCheckpointFix(await serverVersion(client))).toBe(true);
    await expect(probeEventStoreDb(target.url!, 10_000)).resolves.toBeUndefined();
  });

  it('answers a read of or an append to a tombstoned stream with StreamDeletedError, and hands its tombstone to no reader', async () => {
    const first = await store.appendToStream('doomed', [event('Before')], 'no_stream');
    await client.tombstoneStream(`${prefix}doomed`);
    const read = store.readStream('doomed');
    await expect(read).rejects.toBeInstanceOf(StreamDeletedError);
    await expect(read).rejects.toMatchObject({ streamName: 'doomed' });
    await expect(store.appendToStream('doomed', [event('After')], 0n)).rejects.toBeInstanceOf(StreamDeletedError);
    await expect(store.appendToStream('doomed', [event('After')], 'any')).rejects.toBeInstanceOf(StreamDeletedError);

    // The deleted stream's events stay in $all until a scavenge; the tombstone record is the server's, not an event.
    await store.appendToStream('marker', [event('Marker')], 'no_stream');
    expect((await store.readAll({ after: first.position, limit: 100 })).map((e) => e.type)).toEqual(['Marker']);
    const controller = new AbortController();
    const seen: RecordedEvent[] = [];
    for await (const e of store.subscribeToAll({ signal: controller.signal })) {
      seen.push(e);
      if (e.type === 'Marker') controller.abort();
    }
    expect(seen.filter((e) => e.type !== 'Before').map((e) => e.type)).toEqual(['Marker']);
  });

  it("reads $all filtered by the server: a read for this environment's prefix brings none of a busy neighbour's events", async () => {
    await store.appendToStream('s', [event('First')], 'no_stream');
    for (let batch = 0; batch < 10; batch += 1) {
      await neighbour.appendToStream(
        `busy${batch}`,
        Array.from({ length: 100 }, () => event('Elsewhere')),
        'no_stream',
      );
    }
    await store.appendToStream('s', [event('Last')], 0n);
    const raw: string[] = [];
    for await (const resolved of readAllFiltered(client, prefix, undefined, 1_000)) raw.push(resolved.event!.streamId);
    expect(raw).toEqual([`${prefix}s`, `${prefix}s`]);
    expect((await store.readAll({ limit: 1_000 })).map((e) => e.type)).toEqual(['First', 'Last']);
    // A limit smaller than what is there: exactly that many, the next read going on after the last.
    const firstPage = await store.readAll({ limit: 1 });
    expect(firstPage.map((e) => e.type)).toEqual(['First']);
    expect((await store.readAll({ after: firstPage[0]!.position, limit: 1 })).map((e) => e.type)).toEqual(['Last']);
  });
});
