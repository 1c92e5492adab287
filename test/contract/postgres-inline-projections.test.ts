import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.js';
import { PostgresReadModelStore } from '../../src/adapters/postgres/read-model-store.js';
import type { Document } from '../../src/ports/collections.js';
import type { NewEvent } from '../../src/ports/event-store.js';
import type { Projection } from '../../src/ports/projection.js';
import { Projector } from '../../src/projector/projector.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';

// Issue 42, "one transaction per command": with the read models beside the log, an append commits the projections'
// changes in its own transaction, and the projector's lanes pass over them.

const shared = sharedPostgres();
afterAll(() => shared.stopShared());

interface Tally extends Document {
  n: number;
}

/** One document per stream counting its Tallied events, and a counter of them all per stream's first letter. */
const tallies: Projection = {
  name: 'tallies',
  collection: 'tallies',
  canHandle: ['Tallied'],
  documentId: (event) => event.streamName,
  evolve: (current, event) => ({ id: event.streamName, n: ((current as Tally | undefined)?.n ?? 0) + 1 }),
  counts: (_own, event) => [{ counter: 'all', period: 'ever', key: event.streamName.slice(0, 1) }],
  sweep: (event) => (event.type === 'Erased' ? { where: { id: event.streamName }, keep: ['id'], set: { erased: true } } : undefined),
};

const tallied = (count = 1): NewEvent[] =>
  Array.from({ length: count }, () => ({ id: randomUUID(), type: 'Tallied', data: {}, metadata: {} }));
let schemas = 0;

/** A schema with its read models made, a log that projects inline, and one that does not (as a log of another configuration). */
async function setUp() {
  const url = await shared.database();
  const schema = `inline_${++schemas}`;
  const readModels = await PostgresReadModelStore.connect(url, schema, []);
  const inline = new PostgresEventStore(url, schema, { projections: [tallies] });
  const plain = new PostgresEventStore(url, schema);
  return {
    url,
    schema,
    readModels,
    inline,
    plain,
    tally: async (stream: string) => ((await readModels.get('tallies', stream)) as Tally | undefined)?.n,
    total: async (key: string) => (await readModels.counts('tallies', 'all', 'ever', 'ever~')).find((row) => row.key === key)?.n,
    close: () => Promise.all([readModels.close(), inline.close(), plain.close()]),
  };
}

describe.skipIf(postgresBinDir === undefined)('postgres: projections committed with the append', () => {
  it('commits the read models with the events: readable at once, the checkpoint at the append', async () => {
    const { readModels, inline, tally, total, close } = await setUp();
    const first = await inline.appendToStream('a-1', tallied(2), 'no_stream');
    expect(inline.projectedWith(first.position)).toBe(true);
    expect(await tally('a-1')).toBe(2);
    expect(await total('a')).toBe(2);
    expect(await readModels.checkpoint('tallies')).toBe(first.position);
    await close();
  });

  it('folds in the few events the projections lack from before the append', async () => {
    const { inline, plain, tally, total, close } = await setUp();
    await plain.appendToStream('b-1', tallied(3), 'no_stream');
    const after = await inline.appendToStream('b-1', tallied(1), 2n);
    expect(inline.projectedWith(after.position)).toBe(true);
    expect(await tally('b-1')).toBe(4);
    expect(await total('b')).toBe(4);
    await close();
  });

  it('leaves the append to the projector when a projection is further behind, writing nothing', async () => {
    const { readModels, inline, plain, tally, close } = await setUp();
    for (let i = 0; i < 70; i += 1) await plain.appendToStream(`c-${i}`, tallied(1), 'no_stream');
    const late = await inline.appendToStream('c-late', tallied(1), 'no_stream');
    expect(inline.projectedWith(late.position)).toBe(false);
    expect(await tally('c-late')).toBeUndefined();
    expect(await readModels.checkpoint('tallies')).toBeUndefined();
    await close();
  });

  it('leaves an erasure to the projector’s lanes, writing nothing', async () => {
    const { inline, tally, close } = await setUp();
    await inline.appendToStream('d-1', tallied(1), 'no_stream');
    const erased = await inline.appendToStream('d-1', [{ id: randomUUID(), type: 'Erased', data: {}, metadata: {} }], 0n);
    expect(inline.projectedWith(erased.position)).toBe(false);
    expect(await tally('d-1')).toBe(1);
    await close();
  });

  it('counts every event once while replicas append and a projector leads', async () => {
    const { url, schema, readModels, tally, total, close } = await setUp();
    const replicas = Array.from({ length: 4 }, () => new PostgresEventStore(url, schema, { projections: [tallies], max: 3 }));
    const projector = new Projector(replicas[0]!, readModels, [tallies], [], pino({ level: 'silent' }), 10, false);
    projector.start();
    const perReplica = 30;
    let last = 0n;
    let inlined = 0;
    await Promise.all(
      replicas.map(async (store, r) => {
        for (let i = 0; i < perReplica; i += 3) {
          const appends = [0, 1, 2].map((j) => store.appendToStream(`${'efgh'[r]}-${(i + j) % 5}`, tallied(1), 'any'));
          for (const { position } of await Promise.all(appends)) {
            if (store.projectedWith(position)) inlined += 1;
            if (position > last) last = position;
          }
        }
      }),
    );
    expect(await projector.waitFor(last, 60_000)).toBe(true);
    // Whatever each append's path (inline, or left to the lanes), every event counted once and each document whole.
    for (const letter of 'efgh') {
      expect(await total(letter)).toBe(perReplica);
      for (let s = 0; s < 5; s += 1) expect(await tally(`${letter}-${s}`)).toBe(perReplica / 5);
    }
    expect(inlined).toBeGreaterThan(0);
    await projector.stop();
    await Promise.all(replicas.map((store) => store.close()));
    await close();
  });
});
