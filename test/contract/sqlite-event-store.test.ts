import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { type NewEvent, type RecordedEvent, WrongExpectedRevisionError } from '../../src/ports/event-store.js';
import { tempDir } from '../support/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const event = (type = 'Happened', data: unknown = { n: 1 }): NewEvent => ({ id: randomUUID(), type, data, metadata: {} });

/** Bytes in the file's WAL, which only grows here (no checkpoint): each commit adds the pages it changed. */
const walBytes = (path: string) => statSync(`${path}-wal`).size;

/** Collects what a subscription yields until `count` events have come. */
async function collect(store: SqliteEventStore, count: number, after?: bigint): Promise<RecordedEvent[]> {
  const controller = new AbortController();
  const seen: RecordedEvent[] = [];
  for await (const recorded of store.subscribeToAll({ ...(after !== undefined && { after }), signal: controller.signal })) {
    seen.push(recorded);
    if (seen.length === count) controller.abort();
  }
  return seen;
}

describe('sqlite event store: group commit', () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = tempDir();
    path = join(dir.path, 'events.db');
    store = new SqliteEventStore(path, 'FULL', { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await store.close();
    dir.cleanup();
  });

  it('commits the appends of one turn together, in the order they were made', async () => {
    await store.appendToStream('warm-up', [event()], 'no_stream');
    const start = walBytes(path);
    const together = await Promise.all(Array.from({ length: 8 }, (_, i) => store.appendToStream(`t-${i}`, [event()], 'no_stream')));
    const batched = walBytes(path) - start;
    for (let i = 0; i < 8; i += 1) await store.appendToStream(`s-${i}`, [event()], 'no_stream');
    const oneByOne = walBytes(path) - start - batched;
    // Eight commits write each changed page eight times; one commit writes it once.
    expect(batched).toBeLessThan(oneByOne / 4);
    const positions = together.map((result) => result.position);
    expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('fails an append that breaks alone, undoing what it had written, while the others in its batch land', async () => {
    const used = event();
    await store.appendToStream('owner', [used], 'no_stream');
    const twice = event();
    const notJson = event('Bad', { n: 1n });
    const outcomes = await Promise.allSettled([
      store.appendToStream('fine-1', [event()], 'no_stream'),
      store.appendToStream('duplicated', [twice, twice], 'no_stream'),
      store.appendToStream('fine-2', [event()], 'no_stream'),
      store.appendToStream('borrower', [event(), used], 'no_stream'),
      store.appendToStream('unserialisable', [notJson], 'no_stream'),
      store.appendToStream('fine-3', [event()], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
    for (const failed of [outcomes[1], outcomes[3], outcomes[4]]) {
      expect((failed as PromiseRejectedResult).reason).not.toBeInstanceOf(WrongExpectedRevisionError);
    }
    const streams = (await store.readAll({ limit: 100 })).map((e) => e.streamName);
    expect(streams).toEqual(['owner', 'fine-1', 'fine-2', 'fine-3']);
  });

  it('lands all of a unit or none of it: a conflict on its last stream undoes its first, and only it', async () => {
    await store.appendToStream('taken', [event()], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.appendToStreams([
        { streamName: 'fine-a', events: [event()], expected: 'no_stream' },
        { streamName: 'fine-b', events: [event()], expected: 'no_stream' },
      ]),
      store.appendToStreams([
        { streamName: 'undone', events: [event(), event()], expected: 'no_stream' },
        { streamName: 'taken', events: [event()], expected: 'no_stream' },
      ]),
      store.appendToStream('fine-c', [event()], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'WrongExpectedRevisionError', streamName: 'taken' });
    const streams = (await store.readAll({ limit: 100 })).map((e) => e.streamName);
    expect(streams).toEqual(['taken', 'fine-a', 'fine-b', 'fine-c']);
  });

  it('commits a unit alone in a transaction of its own, all or nothing', async () => {
    await store.appendToStream('taken', [event()], 'no_stream');
    await expect(
      store.appendToStreams([
        { streamName: 'undone', events: [event()], expected: 'no_stream' },
        { streamName: 'taken', events: [event()], expected: 'no_stream' },
      ]),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream('undone')).revision).toBe(-1n);
    await expect(
      store.appendToStreams([
        { streamName: 'twice', events: [event()], expected: 'any' },
        { streamName: 'twice', events: [event()], expected: 'any' },
      ]),
    ).rejects.toThrow('a unit appends to each stream once');
  });

  it('fails the whole batch, landing none of it, when the file stays locked past busy_timeout', async () => {
    (store as unknown as { db: Database.Database }).db.pragma('busy_timeout = 50');
    const holder = new Database(path);
    holder.prepare('BEGIN IMMEDIATE').run();
    const outcomes = await Promise.allSettled([
      store.appendToStream('a', [event()], 'no_stream'),
      store.appendToStream('b', [event()], 'no_stream'),
    ]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : o.status))).toEqual([
      'SQLITE_BUSY',
      'SQLITE_BUSY',
    ]);
    holder.prepare('ROLLBACK').run();
    holder.close();
    expect(await store.readAll({ limit: 10 })).toEqual([]);
    expect((await store.appendToStream('a', [event()], 'no_stream')).nextRevision).toBe(0n);
  });

  it('has every resolved append readable by a new store on the same file, before this one closes', async () => {
    const ids = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const appended = event('Durable', { i });
        await store.appendToStream(`d-${i}`, [appended], 'no_stream');
        return appended.id;
      }),
    );
    const other = new SqliteEventStore(path, 'FULL');
    expect((await other.readAll({ limit: 100 })).map((e) => e.id)).toEqual(ids);
    await other.close();
  });

  it('commits what is still queued when closed, and refuses appends afterwards', async () => {
    const pending = store.appendToStream('late', [event('Late')], 'no_stream');
    await store.close();
    expect((await pending).nextRevision).toBe(0n);
    await expect(store.appendToStream('late', [event()], 0n)).rejects.toThrow(/closed/);
    store = new SqliteEventStore(path, 'FULL');
    expect((await store.readStream('late')).events.map((e) => e.type)).toEqual(['Late']);
  });

  it('waits for another process that holds the write lock, then lands after its append', async () => {
    const script = `
      const db = new (require('better-sqlite3'))(process.argv[1]);
      db.prepare('BEGIN IMMEDIATE').run();
      db.prepare("INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, recorded_at) VALUES (?, 'cli', 0, 'ByCli', '{}', '{}', ?)").run(process.argv[2], new Date().toISOString());
      process.stdout.write('locked\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      db.prepare('COMMIT').run();`;
    const child = spawn(process.execPath, ['-e', script, path, randomUUID()], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const watched = collect(store, 3);
    const ours = await Promise.all([
      store.appendToStream('ours-1', [event('Ours')], 'no_stream'),
      store.appendToStream('ours-2', [event('Ours')], 'no_stream'),
    ]);
    expect(await exited).toBe(0);
    const log = await store.readAll({ limit: 10 });
    expect(log.map((e) => e.type)).toEqual(['ByCli', 'Ours', 'Ours']);
    expect(ours.map((r) => r.position)).toEqual([log[1]!.position, log[2]!.position]);
    expect((await watched).map((e) => e.position)).toEqual(log.map((e) => e.position));
  });
});

describe('sqlite event store: subscriptions', () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  beforeEach(() => {
    dir = tempDir();
    path = join(dir.path, 'events.db');
  });
  afterEach(() => dir.cleanup());

  it('wakes a subscriber when a local append commits, without waiting for a poll', async () => {
    const store = new SqliteEventStore(path, 'FULL', { pollIntervalMs: 3_600_000 });
    const seen = collect(store, 2);
    await store.appendToStream('s', [event('One')], 'no_stream');
    await store.appendToStream('s', [event('Two')], 0n);
    expect((await seen).map((e) => e.type)).toEqual(['One', 'Two']);
    await store.close();
  });

  it('finds what another store on the file appended by polling', async () => {
    const store = new SqliteEventStore(path, 'FULL', { pollIntervalMs: 20 });
    const other = new SqliteEventStore(path, 'FULL');
    const seen = collect(store, 1);
    await other.appendToStream('s', [event('Elsewhere')], 'no_stream');
    expect((await seen).map((e) => e.type)).toEqual(['Elsewhere']);
    await other.close();
    await store.close();
  });

  it('gives every subscriber each event once, in order, whether it starts far behind the head or at it', async () => {
    const store = new SqliteEventStore(path, 'FULL', { pollIntervalMs: 20 });
    for (let i = 0; i < 30; i += 1)
      await store.appendToStream(
        `old-${i}`,
        Array.from({ length: 100 }, () => event('Old')),
        'no_stream',
      );
    const history = await store.readAll({ limit: 10_000 });
    const middle = history[1500]!.position;
    const fromStart = collect(store, 3000 + 200);
    const fromMiddle = collect(store, 1499 + 200, middle);
    const atHead = collect(store, 200, history.at(-1)!.position);
    for (let i = 0; i < 40; i += 1)
      await Promise.all([0, 1, 2, 3, 4].map((j) => store.appendToStream(`new-${i}-${j}`, [event('New')], 'no_stream')));
    const log = await store.readAll({ limit: 10_000 });
    expect((await fromStart).map((e) => e.id)).toEqual(log.map((e) => e.id));
    expect((await fromMiddle).map((e) => e.id)).toEqual(log.slice(1501).map((e) => e.id));
    expect((await atHead).map((e) => e.id)).toEqual(log.slice(3000).map((e) => e.id));
    await store.close();
  });
});
