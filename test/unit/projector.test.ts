import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import type { DocumentOf } from '../../src/ports/collections.js';
import type { DomainEvent, EventStore } from '../../src/ports/event-store.js';
import type { Projection, Reactor } from '../../src/ports/projection.js';
import { type DocumentWrite, FencedOffError, type ReadModelStore, type StoredVersion } from '../../src/ports/read-models.js';
import { Projector } from '../../src/projector/projector.js';
import { tempDir } from '../support/temp-dir.js';

/** Counts events per stream: a replayed event would count twice. */
const counter: Projection<DomainEvent, { id: string; seen: number; last: number }> = {
  name: 'counter',
  collection: 'counts',
  canHandle: ['Counted'],
  documentId: (event) => event.streamName,
  evolve: (current, event) => ({ id: event.streamName, seen: (current?.seen ?? 0) + 1, last: Number(event.revision) }),
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

const count = (n: number) => Array.from({ length: n }, () => ({ id: randomUUID(), type: 'Counted', data: {}, metadata: {} }));

/** The store with every commit recorded, and the next `failures` commits of `failing` refused. */
function recording(inner: ReadModelStore) {
  const commits: { projection: string; position: bigint; writes: DocumentWrite[] }[] = [];
  const control = { failing: '', failures: 0 };
  const store: ReadModelStore = {
    checkpoint: (projection) => inner.checkpoint(projection),
    get: (collection, id) => inner.get(collection, id),
    getMany: (collection, ids) => inner.getMany(collection, ids),
    list: (collection, query) => inner.list(collection, query),
    counts: (collection, counter, from, to) => inner.counts(collection, counter, from, to),
    async commit(projection, position, writes, fence) {
      if (projection === control.failing && control.failures > 0) {
        control.failures -= 1;
        throw new Error('commit refused');
      }
      commits.push({ projection, position, writes });
      await inner.commit(projection, position, writes, fence);
    },
    purge: () => inner.purge(),
    reset: (collections, checkpoints) => inner.reset(collections, checkpoints),
    acquireLease: (name, holder, ttlMs) => inner.acquireLease(name, holder, ttlMs),
    releaseLease: (name, holder) => inner.releaseLease(name, holder),
    checkFence: (fence) => inner.checkFence(fence),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { store, commits, control };
}

/** The log with its subscriptions and reads counted. */
function counting(inner: EventStore) {
  const calls = { subscribeToAll: 0, readAll: 0 };
  const store: EventStore = {
    appendToStream: (...args) => inner.appendToStream(...args),
    appendToStreams: (appends) => inner.appendToStreams(appends),
    readStream: (...args) => inner.readStream(...args),
    readAll: (options) => {
      calls.readAll += 1;
      return inner.readAll(options);
    },
    subscribeToAll: (options) => {
      calls.subscribeToAll += 1;
      return inner.subscribeToAll(options);
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { store, calls };
}

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

  it('projects every event, checkpoints, and resumes after a restart without gaps or repeats', async () => {
    reactions.length = 0;
    const first = open();
    first.projector.start();
    const a = await first.events.appendToStream('c-1', count(3), 'no_stream');
    expect(await first.projector.waitFor(a.position, 2000)).toBe(true);
    expect(await first.readModels.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 3, last: 2 });
    expect(await first.readModels.checkpoint('counter')).toBe(a.position);
    await expect.poll(() => first.readModels.checkpoint('recorder')).toBe(a.position);
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
    await expect.poll(() => second.readModels.checkpoint('recorder')).toBe(b.position);
    expect(reactions).toEqual(['c-1@0', 'c-1@1', 'c-1@2', 'c-1@3', 'c-1@4']);
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
    for (let i = 0; i < 6; i++)
      last = (
        await events.appendToStream(
          `other-${i}`,
          Array.from({ length: 100 }, () => ({ id: randomUUID(), type: 'Unrelated', data: {}, metadata: {} })),
          'no_stream',
        )
      ).position;
    expect(await projector.waitFor(last, 5000)).toBe(true);
    await expect.poll(() => readModels.checkpoint('recorder')).toBeGreaterThanOrEqual(500n);
    expect(await readModels.checkpoint('counter')).toBeGreaterThanOrEqual(500n);
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

  it('reads the log once for every handler and commits a projection once per page, one write per document', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL');
    let last = 0n;
    for (let i = 0; i < 100; i++)
      for (const stream of ['c-a', 'c-b', 'c-c'])
        last = (await events.appendToStream(stream, count(1), i === 0 ? 'no_stream' : BigInt(i - 1))).position;
    const log = counting(events);
    const { store, commits } = recording(new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL'));
    const reactors = ['r1', 'r2', 'r3'].map((name) => ({ ...recorder, name }));
    // Page by page (no catch-up in one scan first), as it goes once the projections have caught up.
    const projector = new Projector(log.store, store, [counter], reactors, pino({ level: 'silent' }), 10, false);
    projector.start();
    expect(await projector.waitFor(last, 5000)).toBe(true);
    for (const stream of ['c-a', 'c-b', 'c-c']) expect(await store.get('counts', stream)).toEqual({ id: stream, seen: 100, last: 99 });
    const counted = commits.filter((c) => c.projection === 'counter');
    expect(counted.length).toBeLessThan(10);
    for (const commit of counted) expect(commit.writes.length).toBeLessThanOrEqual(3);
    expect(log.calls).toEqual({ subscribeToAll: 1, readAll: 0 });
    await projector.stop();
    await events.close();
    await store.close();
  });

  it("passes over the events a reactor's own test says it does not act on, without a commit", async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const { store, commits } = recording(new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL'));
    const reacted: bigint[] = [];
    const evenOnly: Reactor = {
      name: 'even',
      canHandle: ['Counted'],
      acts: (event) => event.revision % 2n === 0n,
      react: async (event) => void reacted.push(event.revision),
    };
    const projector = new Projector(events, store, [counter], [evenOnly], pino({ level: 'silent' }), 10);
    projector.start();
    await events.appendToStream('c-1', count(5), 'no_stream');
    await expect.poll(() => reacted).toEqual([0n, 2n, 4n]);
    const odd = await events.appendToStream('c-1', count(1), 4n);
    // The next even event is reacted to in order, after the odd one was passed over.
    await events.appendToStream('c-1', count(1), 5n);
    await expect.poll(() => reacted).toEqual([0n, 2n, 4n, 6n]);
    expect(commits.filter((c) => c.projection === 'even').some((c) => c.position === odd.position)).toBe(false);
    await projector.stop();
    await events.close();
    await store.close();
  });

  it('hands a reactor that reacts to pages the events it acts on, a page per call, each once, then checkpoints the page', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL');
    // Written before the projector starts, so they come as one page.
    const appended = await events.appendToStream('c-1', count(9), 'no_stream');
    const { store, commits } = recording(new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL'));
    const calls: bigint[][] = [];
    const paged: Reactor = {
      name: 'paged',
      canHandle: ['Counted'],
      acts: (event) => event.revision % 3n === 0n,
      react: () => Promise.reject(new Error('reacts to pages only')),
      reactAll: async (page) => void calls.push(page.map((event) => event.revision)),
    };
    const projector = new Projector(events, store, [counter], [paged], pino({ level: 'silent' }), 10);
    projector.start();
    await expect.poll(() => store.checkpoint('paged')).toBe(appended.position);
    expect(calls).toEqual([[0n, 3n, 6n]]);
    expect(commits.filter((c) => c.projection === 'paged').map((c) => c.position)).toEqual([appended.position]);
    await projector.stop();
    await events.close();
    await store.close();
  });

  it('retries a refused commit from the checkpoint: the page is applied once', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const { store, control } = recording(new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL'));
    Object.assign(control, { failing: 'counter', failures: 2 });
    const projector = new Projector(events, store, [counter], [], pino({ level: 'silent' }), 10);
    projector.start();
    const appended = await events.appendToStream('c-1', count(7), 'no_stream');
    expect(await projector.waitFor(appended.position, 5000)).toBe(true);
    expect(control.failures).toBe(0);
    expect(await store.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 7, last: 6 });
    await projector.stop();
    await events.close();
    await store.close();
  });

  it('keeps projecting while a reactor fails or hangs; the reactor catches up from the log once it is behind the kept pages', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const log = counting(events);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let failures = 3;
    const seen = new Set<string>();
    const stuck: Reactor = {
      name: 'stuck',
      canHandle: ['Counted'],
      async react(event) {
        if (failures > 0) {
          failures -= 1;
          throw new Error('not now');
        }
        await released;
        seen.add(event.id);
      },
    };
    const projector = new Projector(log.store, readModels, [counter], [stuck], pino({ level: 'silent' }), 10);
    projector.start();
    let last = 0n;
    // More than the pages kept for a lagging handler.
    for (let i = 0; i < 12; i++)
      last = (await events.appendToStream('c-1', count(1000), i === 0 ? 'no_stream' : BigInt(i * 1000 - 1))).position;
    expect(await projector.waitFor(last, 10_000)).toBe(true);
    expect(await readModels.get('counts', 'c-1')).toMatchObject({ seen: 12_000 });
    expect(seen.size).toBe(0);
    release();
    await expect.poll(() => readModels.checkpoint('stuck'), { timeout: 10_000 }).toBe(last);
    expect(seen.size).toBe(12_000);
    expect(log.calls.subscribeToAll).toBe(1);
    expect(log.calls.readAll).toBeGreaterThan(0);
    await projector.stop();
    await events.close();
    await readModels.close();
  });

  it('keeps a lane that lags but moves on the shared pages, however far ahead the others are', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL');
    let last = 0n;
    for (let i = 0; i < 12; i++)
      last = (await events.appendToStream('c-1', count(1000), i === 0 ? 'no_stream' : BigInt(i * 1000 - 1))).position;
    const log = counting(events);
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    let reacted = 0;
    const slow: Reactor = {
      name: 'slow',
      canHandle: ['Counted'],
      async react(event) {
        reacted += 1;
        if (event.revision % 100n === 0n) await new Promise((resolve) => setTimeout(resolve, 2));
      },
    };
    // Page by page, the projection far ahead of the reactor.
    const projector = new Projector(log.store, readModels, [counter], [slow], pino({ level: 'silent' }), 10, false);
    projector.start();
    expect(await projector.waitFor(last, 10_000)).toBe(true);
    await expect.poll(() => readModels.checkpoint('slow'), { timeout: 10_000 }).toBe(last);
    expect(reacted).toBe(12_000);
    expect(log.calls).toEqual({ subscribeToAll: 1, readAll: 0 });
    await projector.stop();
    await events.close();
    await readModels.close();
  });

  it('on a store that writes documents before its checkpoint, replays a page without applying an event twice', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const inner = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    // Like the MongoDB adapter: each document keeps the position of its last event, and a commit that fails
    // half-way leaves its documents written and its checkpoint where it was.
    const positions = new Map<string, bigint>();
    let crash = true;
    const store: ReadModelStore = {
      ...recording(inner).store,
      async getMany(collection, ids) {
        const found = new Map<string, StoredVersion<DocumentOf<typeof collection>>>();
        for (const [id, { doc }] of await inner.getMany(collection, ids)) found.set(id, { doc, position: positions.get(id) });
        return found;
      },
      async commit(projection, position, writes) {
        for (const write of writes) if ('id' in write) positions.set(write.id, write.position!);
        if (crash) {
          crash = false;
          await inner.commit(projection, (await inner.checkpoint(projection)) ?? 0n, writes);
          throw new Error('died before the checkpoint');
        }
        await inner.commit(projection, position, writes);
      },
    };
    await events.appendToStream('c-1', count(3), 'no_stream');
    await events.appendToStream('c-2', count(2), 'no_stream');
    const projector = new Projector(events, store, [counter], [], pino({ level: 'silent' }), 10);
    projector.start();
    const last = (await events.appendToStream('c-1', count(1), 2n)).position;
    expect(await projector.waitFor(last, 5000)).toBe(true);
    expect(crash).toBe(false);
    expect(await store.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 4, last: 3 });
    expect(await store.get('counts', 'c-2')).toEqual({ id: 'c-2', seen: 2, last: 1 });
    await projector.stop();
    await events.close();
    await store.close();
  });
});

describe('projector among replicas (two connections to the same files, as two processes have)', () => {
  let dir: ReturnType<typeof tempDir>;
  const opened: { events: SqliteEventStore; readModels: SqliteReadModelStore; projector: Projector }[] = [];
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    for (const replica of opened.splice(0)) {
      await replica.projector.stop();
      await replica.events.close();
      await replica.readModels.close();
    }
    dir.cleanup();
  });
  const replica = (reactors: Reactor[] = []) => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const projector = new Projector(events, readModels, [counter], reactors, pino({ level: 'silent' }), 10);
    opened.push({ events, readModels, projector });
    return { events, readModels, projector };
  };
  const lead = async (r: ReturnType<typeof replica>, holder: string) => {
    const token = (await r.readModels.acquireLease('leader', holder, 60_000))!;
    r.projector.start({ lease: 'leader', token });
    return token;
  };

  it("answers a follower's waitFor once the leader has projected its write, events no projection handles included", async () => {
    const leader = replica();
    const follower = replica();
    await lead(leader, 'a');
    const counted = await follower.events.appendToStream('c-1', count(2), 'no_stream');
    expect(await follower.projector.waitFor(counted.position, 5000)).toBe(true);
    expect(await follower.readModels.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 2, last: 1 });
    // No projection commits for these: the leader's progress in the store says they are handled all the same.
    const unrelated = await follower.events.appendToStream(
      'other',
      [{ id: randomUUID(), type: 'Unrelated', data: {}, metadata: {} }],
      'no_stream',
    );
    expect(await follower.projector.waitFor(unrelated.position, 5000)).toBe(true);
    expect(await follower.readModels.checkpoint('counter')).toBe(counted.position);
    // With no leader, nothing answers it.
    await leader.projector.follow();
    const waiting = await follower.events.appendToStream('c-1', count(1), 1n);
    expect(await follower.projector.waitFor(waiting.position, 100)).toBe(false);
  });

  it('hands over from one leader to the next without applying or reacting to an event twice', async () => {
    const seen: string[] = [];
    const logging: Reactor = {
      name: 'logging',
      canHandle: ['Counted'],
      react: async (event) => void seen.push(`${event.streamName}@${event.revision}`),
    };
    const first = replica([logging]);
    const second = replica([logging]);
    await lead(first, 'a');
    const a = await second.events.appendToStream('c-1', count(3), 'no_stream');
    expect(await first.projector.waitFor(a.position, 5000)).toBe(true);
    await expect.poll(() => first.readModels.checkpoint('logging')).toBe(a.position);
    await first.projector.follow();
    await first.readModels.releaseLease('leader', 'a');
    const b = await first.events.appendToStream('c-1', count(2), 2n);
    await lead(second, 'b');
    // The replica that led before now follows, and its writes are answered by the new leader's progress.
    expect(await first.projector.waitFor(b.position, 5000)).toBe(true);
    expect(await first.readModels.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 5, last: 4 });
    await expect.poll(() => seen.length).toBe(5);
    expect(seen).toEqual(['c-1@0', 'c-1@1', 'c-1@2', 'c-1@3', 'c-1@4']);
  });

  it('stops a deposed leader at its first refused commit: nothing more of it is written, and the new leader projects everything once', async () => {
    const first = replica();
    const second = replica();
    // The first replica's commits, as the store answered them.
    const outcomes: string[] = [];
    const inner = first.readModels;
    const watched: ReadModelStore = {
      ...recording(inner).store,
      async commit(projection, position, writes, fence) {
        try {
          await inner.commit(projection, position, writes, fence);
          outcomes.push('written');
        } catch (error) {
          outcomes.push(error instanceof FencedOffError ? 'fenced off' : 'failed');
          throw error;
        }
      },
    };
    const deposed = new Projector(first.events, watched, [counter], [], pino({ level: 'silent' }), 10);
    opened.push({ ...first, projector: deposed });
    const old = (await inner.acquireLease('leader', 'a', 60_000))!;
    deposed.start({ lease: 'leader', token: old });
    const a = await first.events.appendToStream('c-1', count(2), 'no_stream');
    expect(await deposed.waitFor(a.position, 5000)).toBe(true);
    expect(outcomes).toContain('written');
    // The lease passes on (the first replica stalled past it, say) while the first still runs.
    await inner.releaseLease('leader', 'a');
    expect(await lead(second, 'b')).toBeGreaterThan(old);
    const takeover = outcomes.length;
    const b = await second.events.appendToStream('c-1', count(3), 1n);
    await expect.poll(() => outcomes.slice(takeover)).toContain('fenced off');
    expect(await second.projector.waitFor(b.position, 5000)).toBe(true);
    // Stopped, the deposed replica follows: its writes are answered by the new leader's progress.
    const c = await first.events.appendToStream('c-1', count(1), 4n);
    expect(await deposed.waitFor(c.position, 5000)).toBe(true);
    expect(outcomes.slice(takeover)).not.toContain('written');
    expect(await second.readModels.get('counts', 'c-1')).toEqual({ id: 'c-1', seen: 6, last: 5 });
  });
  it("starts no reaction once the lease has passed on: a deposed leader's side effects stop before they begin, not at its next commit", async () => {
    const reacted: string[] = [];
    const logging: Reactor = {
      name: 'logging',
      canHandle: ['Counted'],
      react: async (event) => void reacted.push(`${event.streamName}@${event.revision}`),
    };
    const first = replica([logging]);
    const fencesChecked: string[] = [];
    const inner = first.readModels;
    const watched: ReadModelStore = {
      ...recording(inner).store,
      async checkFence(fence) {
        try {
          await inner.checkFence(fence);
          fencesChecked.push('held');
        } catch (error) {
          fencesChecked.push(error instanceof FencedOffError ? 'fenced off' : 'failed');
          throw error;
        }
      },
    };
    const deposed = new Projector(first.events, watched, [], [logging], pino({ level: 'silent' }), 10);
    opened.push({ ...first, projector: deposed });
    deposed.start({ lease: 'leader', token: (await inner.acquireLease('leader', 'a', 60_000))! });
    await first.events.appendToStream('c-1', count(1), 'no_stream');
    await expect.poll(() => reacted).toEqual(['c-1@0']);
    await inner.releaseLease('leader', 'a');
    await inner.acquireLease('leader', 'b', 60_000);
    await first.events.appendToStream('c-1', count(2), 0n);
    await expect.poll(() => fencesChecked).toContain('fenced off');
    expect(reacted).toEqual(['c-1@0']);
  });
});
