import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import type { DomainEvent, EventStore, SubscribeOptions } from '../../src/ports/event-store.js';
import type { Projection, Reactor } from '../../src/ports/projection.js';
import { Projector } from '../../src/projector/projector.js';
import { tempDir } from '../support/temp-dir.js';

const counter: Projection<DomainEvent, { id: string; seen: number }> = {
  name: 'counter',
  collection: 'counts',
  canHandle: ['Counted'],
  documentId: (event) => event.streamName,
  evolve: (current, event) => ({ id: event.streamName, seen: (current?.seen ?? 0) + 1 }),
};
const quiet: Reactor = { name: 'quiet', canHandle: ['Counted'], react: async () => undefined };

const events = (n: number) => Array.from({ length: n }, () => ({ id: randomUUID(), type: 'Counted', data: {}, metadata: {} }));

/**
 * The log as a store that keeps environments apart on one server shows it (EventStoreDB's filtered $all
 * subscription): the other environment's streams (`other-…`) are searched past, not yielded, and the
 * subscriber hears how far the search went. Every `after` a subscription starts from is recorded.
 */
function filtered(inner: EventStore) {
  const starts: (bigint | undefined)[] = [];
  const store: EventStore = {
    appendToStream: (...args) => inner.appendToStream(...args),
    appendToStreams: (appends) => inner.appendToStreams(appends),
    readStream: (name) => inner.readStream(name),
    readAll: async (options) => (await inner.readAll(options)).filter((event) => !event.streamName.startsWith('other-')),
    async *subscribeToAll(options: SubscribeOptions) {
      starts.push(options.after);
      for await (const event of inner.subscribeToAll(options)) {
        if (event.streamName.startsWith('other-')) options.onCheckpoint?.(event.position);
        else yield event;
      }
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { store, starts };
}

describe("projector with a store's checkpoints", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());
  const open = () => {
    const raw = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const log = filtered(raw);
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const projector = new Projector(log.store, readModels, [counter], [quiet], pino({ level: 'silent' }), 10);
    return {
      raw,
      log,
      readModels,
      projector,
      close: async () => {
        await raw.close();
        await readModels.close();
      },
    };
  };

  it("moves every handler's checkpoint past the other environment's events, so a restart resumes after them", async () => {
    const first = open();
    const own = await first.raw.appendToStream('own-1', events(2), 'no_stream');
    const others = await first.raw.appendToStream('other-1', events(50), 'no_stream');
    first.projector.start();
    await expect.poll(() => first.readModels.checkpoint('counter')).toBe(others.position);
    await expect.poll(() => first.readModels.checkpoint('quiet')).toBe(others.position);
    expect(await first.readModels.get('counts', 'own-1')).toMatchObject({ seen: 2 });
    expect(own.position).toBeLessThan(others.position);
    await first.projector.stop();
    await first.close();

    const second = open();
    second.projector.start();
    await expect.poll(() => second.log.starts).toEqual([others.position]);
    // What comes after the checkpoint is projected as ever, once.
    const later = await second.raw.appendToStream('own-1', events(1), 1n);
    expect(await second.projector.waitFor(later.position, 2000)).toBe(true);
    expect(await second.readModels.get('counts', 'own-1')).toMatchObject({ seen: 3 });
    await second.projector.stop();
    await second.close();
  });

  it('never moves a checkpoint past an event of its own that comes before the store searched on', async () => {
    const first = open();
    first.projector.start();
    await first.raw.appendToStream('other-1', events(5), 'no_stream');
    const own = await first.raw.appendToStream('own-1', events(3), 'no_stream');
    const others = await first.raw.appendToStream('other-2', events(5), 'no_stream');
    await expect.poll(() => first.readModels.checkpoint('counter')).toBe(others.position);
    expect(await first.readModels.get('counts', 'own-1')).toMatchObject({ seen: 3 });
    expect(own.position).toBeLessThan(others.position);
    await first.projector.stop();
    await first.close();
  });
});
