import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Projection, Reactor } from '../../projections/projection.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { Projector } from '../../src/projector.js';
import { tempDir } from '../support/temp-dir.js';

/** Counts events per stream: a replayed event would count twice. */
const counter: Projection = {
  name: 'counter',
  collection: 'counts',
  canHandle: ['Counted'],
  documentId: (event) => event.streamName,
  evolve: (current, event) => ({ id: event.streamName, seen: ((current?.seen as number | undefined) ?? 0) + 1, last: Number(event.revision) }),
};

/** Records every event it reacts to, in memory: reactions survive nothing, the checkpoint does. */
const reactions: string[] = [];
const recorder: Reactor = {
  name: 'recorder',
  canHandle: ['Counted'],
  react: async (event) => {
    reactions.push(`${event.streamName}@${event.revision}`);
  },
};

describe('projector', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());
  const open = () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const projector = new Projector(events, readModels, [counter], [recorder], pino({ level: 'silent' }), 10);
    return { events, readModels, projector };
  };
  const count = (n: number) => Array.from({ length: n }, () => ({ id: randomUUID(), type: 'Counted', data: {}, metadata: {} }));

  it('projects every event, checkpoints, and resumes after a restart without gaps or repeats', async () => {
    reactions.length = 0;
    const first = open();
    first.projector.start();
    const a = await first.events.appendToStream('c-1', count(3), 'no_stream');
    expect(await first.projector.waitFor(a.position, 2000)).toBe(true);
    expect(await first.readModels.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 3, last: 2 });
    expect(await first.readModels.checkpoint('counter')).toBe(a.position);
    await first.projector.stop();
    // Appended while no projector runs.
    const b = await first.events.appendToStream('c-1', count(2), 2n);
    await first.events.close();
    await first.readModels.close();

    const second = open();
    second.projector.start();
    expect(await second.projector.waitFor(b.position, 2000)).toBe(true);
    expect(await second.readModels.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 5, last: 4 });
    expect(await second.readModels.checkpoint('counter')).toBe(b.position);
    expect(reactions).toEqual(['c-1@0', 'c-1@1', 'c-1@2', 'c-1@3', 'c-1@4']);
    expect(await second.readModels.checkpoint('recorder')).toBe(b.position);
    await second.projector.stop();
    await second.events.close();
    await second.readModels.close();
  });

  it('sees events appended by another process (another connection to the file)', async () => {
    const mine = open();
    mine.projector.start();
    const other = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL');
    const appended = await other.appendToStream('c-2', count(1), 'no_stream');
    expect(await mine.projector.waitFor(appended.position, 2000)).toBe(true);
    expect(await mine.readModels.get('counts', 'c-2')).toEqual({ id: 'c-2', seen: 1, last: 0 });
    await other.close();
    await mine.projector.stop();
    await mine.events.close();
    await mine.readModels.close();
  });

  it('moves the checkpoint of a handler that handles nothing, so a restart does not re-read the whole log', async () => {
    const { events, readModels, projector } = open();
    projector.start();
    let last = 0n;
    for (let i = 0; i < 6; i++) last = (await events.appendToStream(`other-${i}`, Array.from({ length: 100 }, () => ({ id: randomUUID(), type: 'Unrelated', data: {}, metadata: {} })), 'no_stream')).position;
    expect(await projector.waitFor(last, 5000)).toBe(true);
    for (const name of ['counter', 'recorder']) expect(await readModels.checkpoint(name)).toBeGreaterThanOrEqual(500n);
    await projector.stop();
    await events.close();
    await readModels.close();
  });

  it('answers waitFor with false when the position is not reached in time', async () => {
    const { projector, events, readModels } = open();
    expect(await projector.waitFor(1_000n, 30)).toBe(false);
    await events.close();
    await readModels.close();
  });
});
