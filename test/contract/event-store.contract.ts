import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventStore, type NewEvent, type RecordedEvent, WrongExpectedRevisionError } from '../../src/ports/event-store.js';

export interface EventStoreFixture {
  store: EventStore;
  /** Another environment's log on the same server, where the adapter keeps several apart (EventStoreDB). */
  neighbour?: EventStore;
  cleanup(): Promise<void>;
}

const event = (type = 'Happened', data: unknown = { n: 1 }): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { request_id: 'req_x' },
});

/** The behaviour every event-store adapter must have. `open` gives each test a store with an empty log. */
export function eventStoreContract(adapter: string, open: () => Promise<EventStoreFixture>, skip = false): void {
  describe.skipIf(skip)(`event store contract: ${adapter}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    // Stream names unique per test, so an adapter may share one server between tests.
    let stream: (name: string) => string;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
      const run = randomUUID().slice(0, 8);
      stream = (name) => `${name}-${run}`;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('appends to a new stream with no_stream and reads it back in order, with bigint revisions', async () => {
      const first = event('A', { v: 1 });
      const second = event('B', { nested: { v: [1, 2] } });
      const result = await store.appendToStream(stream('s'), [first, second], 'no_stream');
      expect(result.nextRevision).toBe(1n);
      const read = await store.readStream(stream('s'));
      expect(read.revision).toBe(1n);
      expect(read.events.map((e) => [e.id, e.type, e.data, e.revision])).toEqual([
        [first.id, 'A', { v: 1 }, 0n],
        [second.id, 'B', { nested: { v: [1, 2] } }, 1n],
      ]);
      expect(read.events[0]!.metadata).toEqual({ request_id: 'req_x' });
      expect(typeof read.events[0]!.position).toBe('bigint');
      expect(read.events[1]!.position).toBeGreaterThan(read.events[0]!.position);
      expect(Number.isNaN(Date.parse(read.events[0]!.recordedAt))).toBe(false);
    });

    it('appends one unit to several streams, each at its expected revision, answering each in order', async () => {
      await store.appendToStream(stream('existing'), [event()], 'no_stream');
      const results = await store.appendToStreams([
        { streamName: stream('existing'), events: [event('A')], expected: 0n },
        { streamName: stream('new'), events: [event('B'), event('C')], expected: 'no_stream' },
      ]);
      expect(results.map((result) => result.nextRevision)).toEqual([1n, 1n]);
      expect(results[1]!.position).toBeGreaterThan(results[0]!.position);
      expect((await store.readStream(stream('existing'))).events.map((e) => e.type)).toEqual(['Happened', 'A']);
      expect((await store.readStream(stream('new'))).events.map((e) => e.type)).toEqual(['B', 'C']);
    });

    it('refuses a unit whose first stream is not at its expected revision, appending none of it', async () => {
      await store.appendToStream(stream('taken'), [event()], 'no_stream');
      const attempt = store.appendToStreams([
        { streamName: stream('taken'), events: [event()], expected: 'no_stream' },
        { streamName: stream('other'), events: [event()], expected: 'no_stream' },
      ]);
      await expect(attempt).rejects.toMatchObject({ name: 'WrongExpectedRevisionError', streamName: stream('taken') });
      expect((await store.readStream(stream('other'))).revision).toBe(-1n);
    });

    it('reads a stream that does not exist as revision -1 with no events', async () => {
      expect(await store.readStream(stream('missing'))).toEqual({ revision: -1n, events: [] });
    });

    it("reads a stream from a revision on: the events from there, and the whole stream's revision", async () => {
      const events = [event('A'), event('B'), event('C')];
      await store.appendToStream(stream('s'), events, 'no_stream');
      const tail = await store.readStream(stream('s'), { fromRevision: 1n });
      expect(tail.revision).toBe(2n);
      expect(tail.events.map((e) => [e.id, e.revision])).toEqual([
        [events[1]!.id, 1n],
        [events[2]!.id, 2n],
      ]);
      expect(await store.readStream(stream('s'), { fromRevision: 3n })).toEqual({ revision: 2n, events: [] });
      expect(await store.readStream(stream('missing'), { fromRevision: 1n })).toEqual({ revision: -1n, events: [] });
    });

    it('refuses no_stream on an existing stream with a typed conflict and appends nothing', async () => {
      await store.appendToStream(stream('s'), [event()], 'no_stream');
      const attempt = store.appendToStream(stream('s'), [event()], 'no_stream');
      await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(attempt).rejects.toMatchObject({ actual: 0n });
      expect((await store.readStream(stream('s'))).events).toHaveLength(1);
    });

    it('appends at the exact expected revision and refuses a stale one', async () => {
      await store.appendToStream(stream('s'), [event(), event()], 'no_stream');
      await expect(store.appendToStream(stream('s'), [event()], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const result = await store.appendToStream(stream('s'), [event()], 1n);
      expect(result.nextRevision).toBe(2n);
      await expect(store.appendToStream(stream('fresh'), [event()], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    });

    it("appends with 'any' whatever the stream's revision", async () => {
      await store.appendToStream(stream('s'), [event()], 'any');
      const result = await store.appendToStream(stream('s'), [event()], 'any');
      expect(result.nextRevision).toBe(1n);
    });

    it('lets exactly one of many concurrent appends at the same revision win', async () => {
      await store.appendToStream(stream('s'), [event()], 'no_stream');
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store.appendToStream(stream('s'), [event()], 0n)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const failed of outcomes.filter((o) => o.status === 'rejected')) {
        expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect((await store.readStream(stream('s'))).revision).toBe(1n);
    });

    it('lands every one of many concurrent appends to different streams, each answered with its own position', async () => {
      const names = Array.from({ length: 16 }, (_, i) => stream(`c${i}`));
      const batches = names.map(() => [event(), event()]);
      const results = await Promise.all(names.map((name, i) => store.appendToStream(name, batches[i]!, 'no_stream')));
      expect(results.map((r) => r.nextRevision)).toEqual(names.map(() => 1n));
      expect(new Set(results.map((r) => r.position)).size).toBe(names.length);
      for (const [i, name] of names.entries()) {
        const read = await store.readStream(name);
        expect(read.events.map((e) => e.id)).toEqual(batches[i]!.map((e) => e.id));
        expect(read.events[1]!.position).toBe(results[i]!.position);
        expect(read.events[1]!.position).toBeGreaterThan(read.events[0]!.position);
      }
      // The log reads in one increasing order, each append's events together.
      const ours = (await store.readAll({ limit: 1_000_000 })).filter((e) => names.includes(e.streamName));
      expect(ours).toHaveLength(2 * names.length);
      for (let i = 1; i < ours.length; i += 1) expect(ours[i]!.position).toBeGreaterThan(ours[i - 1]!.position);
      for (let i = 0; i < ours.length; i += 2) expect(ours[i + 1]!.streamName).toBe(ours[i]!.streamName);
    });

    it('fails a conflicting append alone while the appends made beside it land', async () => {
      await store.appendToStream(stream('taken'), [event()], 'no_stream');
      const fine = [event('Fine1'), event('Fine2'), event('Fine3')];
      const outcomes = await Promise.allSettled([
        store.appendToStream(stream('f1'), [fine[0]!], 'no_stream'),
        store.appendToStream(stream('taken'), [event('Stale')], 'no_stream'),
        store.appendToStream(stream('f2'), [fine[1]!], 'any'),
        store.appendToStream(stream('missing'), [event('Ahead')], 4n),
        store.appendToStream(stream('taken'), [fine[2]!], 0n),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
      for (const failed of [outcomes[1], outcomes[3]])
        expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(stream('f1'))).events.map((e) => e.id)).toEqual([fine[0]!.id]);
      expect((await store.readStream(stream('f2'))).events.map((e) => e.id)).toEqual([fine[1]!.id]);
      expect((await store.readStream(stream('taken'))).events.map((e) => e.type)).toEqual(['Happened', 'Fine3']);
      expect((await store.readStream(stream('missing'))).revision).toBe(-1n);
    });

    it('stores a retried append (same event ids, same place) once and answers as the first time', async () => {
      const batch = [event(), event()];
      const first = await store.appendToStream(stream('s'), batch, 'no_stream');
      const again = await store.appendToStream(stream('s'), batch, 'no_stream');
      expect(again).toEqual(first);
      expect((await store.readStream(stream('s'))).events).toHaveLength(2);
    });

    it('reads all streams in position order, after an exclusive position, up to a limit', async () => {
      const before = await store.readAll({ limit: 1_000_000 });
      const start = before.at(-1)?.position;
      await store.appendToStream(stream('a'), [event('A1')], 'no_stream');
      await store.appendToStream(stream('b'), [event('B1')], 'no_stream');
      await store.appendToStream(stream('a'), [event('A2')], 0n);
      const all = await store.readAll({ ...(start !== undefined && { after: start }), limit: 100 });
      const ours = all.filter((e) => e.streamName === stream('a') || e.streamName === stream('b'));
      expect(ours.map((e) => e.type)).toEqual(['A1', 'B1', 'A2']);
      const positions = all.map((e) => e.position);
      expect([...positions].sort((x, y) => (x < y ? -1 : 1))).toEqual(positions);
      const afterFirst = await store.readAll({ after: ours[0]!.position, limit: 1 });
      expect(afterFirst).toHaveLength(1);
      expect(afterFirst[0]!.position).toBeGreaterThan(ours[0]!.position);
    });

    it('subscribes to all: past events first, then new appends as they commit, until aborted', async () => {
      await store.appendToStream(stream('s'), [event('Past')], 'no_stream');
      const controller = new AbortController();
      const seen: RecordedEvent[] = [];
      const done = (async () => {
        for await (const e of store.subscribeToAll({ signal: controller.signal })) {
          if (e.streamName !== stream('s')) continue;
          seen.push(e);
          if (seen.length === 3) controller.abort();
        }
      })();
      await store.appendToStream(stream('s'), [event('Live1')], 0n);
      await store.appendToStream(stream('s'), [event('Live2')], 1n);
      await done;
      expect(seen.map((e) => e.type)).toEqual(['Past', 'Live1', 'Live2']);
    });

    it("checkpoints a subscriber past a busy neighbour's events, never past one of its own not yet handed over", async () => {
      const first = await store.appendToStream(stream('s'), [event('First')], 'no_stream');
      // Three thousand events of the other environment: the server searches past them for this one's.
      for (let batch = 0; batch < 30; batch += 1) {
        await fixture.neighbour?.appendToStream(
          stream(`busy${batch}`),
          Array.from({ length: 100 }, () => event('Elsewhere')),
          'no_stream',
        );
      }
      const last = await store.appendToStream(stream('s'), [event('Last')], 0n);
      const controller = new AbortController();
      const seen: ({ kind: 'event'; type: string; position: bigint } | { kind: 'checkpoint'; position: bigint })[] = [];
      const onCheckpoint = (position: bigint) => void seen.push({ kind: 'checkpoint', position });
      for await (const e of store.subscribeToAll({ signal: controller.signal, onCheckpoint })) {
        expect(e.streamName.startsWith('busy')).toBe(false);
        if (e.streamName !== stream('s')) continue;
        seen.push({ kind: 'event', type: e.type, position: e.position });
        if (e.type === 'Last') controller.abort();
      }
      expect(seen.filter((item) => item.kind === 'event').map((item) => (item as { type: string }).type)).toEqual(['First', 'Last']);
      // In order with the events: an event comes after every checkpoint before it, and checkpoints only move on.
      for (const [i, item] of seen.entries()) {
        for (const earlier of seen.slice(0, i)) expect(item.position).toBeGreaterThan(earlier.position);
      }
      const between = seen.filter((item) => item.kind === 'checkpoint' && item.position > first.position && item.position < last.position);
      if (fixture.neighbour !== undefined) expect(between.length).toBeGreaterThan(0);
    });

    it('subscribes from a checkpoint without repeating what came before it', async () => {
      await store.appendToStream(stream('s'), [event('One'), event('Two'), event('Three')], 'no_stream');
      const { events } = await store.readStream(stream('s'));
      const controller = new AbortController();
      const seen: string[] = [];
      for await (const e of store.subscribeToAll({ after: events[0]!.position, signal: controller.signal })) {
        if (e.streamName !== stream('s')) continue;
        seen.push(e.type);
        if (e.type === 'Three') controller.abort();
      }
      expect(seen).toEqual(['Two', 'Three']);
    });
  });
}
