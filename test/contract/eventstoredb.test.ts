import { randomUUID } from 'node:crypto';
import { GenericContainer, Wait } from 'testcontainers';
import { afterAll } from 'vitest';
import { EventStoreDbEventStore } from '../../src/adapters/eventstoredb/event-store.js';
import { serverTarget } from '../support/backend-servers.js';
import { eventStoreContract } from './event-store.contract.js';

const target = await serverTarget('EventStoreDB', 'EVENTSTORE_URL', async () => {
  const container = await new GenericContainer('eventstore/eventstore:24.10')
    .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_CLUSTER_SIZE: '1', EVENTSTORE_RUN_PROJECTIONS: 'None', EVENTSTORE_MEM_DB: 'true' })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113))
    .start();
  return { url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`, container };
});
afterAll(async () => {
  if (target.url !== undefined) await target.stop();
});

// Each test gets its own stream prefix, so tests share one server without seeing each other's events.
eventStoreContract(
  `eventstoredb (${target.url !== undefined ? target.source : 'skipped'})`,
  async () => {
    const run = randomUUID().slice(0, 8);
    const store = EventStoreDbEventStore.connect(target.url!, `contract${run}.`);
    // The other environment of the same server, as production is sandbox's.
    const neighbour = EventStoreDbEventStore.connect(target.url!, `neighbour${run}.`);
    return { store, neighbour, cleanup: async () => (await store.close(), await neighbour.close()) };
  },
  target.url === undefined,
);
