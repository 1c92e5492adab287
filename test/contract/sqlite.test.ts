import { join } from 'node:path';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tempDir } from '../support/temp-dir.js';
import { eventStoreContract } from './event-store.contract.js';
import { readModelStoreContract } from './read-model-store.contract.js';

eventStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = new SqliteEventStore(join(dir.path, 'events.db'), 'FULL', { pollIntervalMs: 50 });
  return { store, cleanup: async () => (await store.close(), dir.cleanup()) };
});

readModelStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL', [{ collection: 'things', field: 'tag' }]);
  return { store, cleanup: async () => (await store.close(), dir.cleanup()) };
});

describe('sqlite event store on disk', () => {
  it('refuses to update or delete an event, even through SQL', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'events.db');
    const store = new SqliteEventStore(path, 'FULL');
    await store.appendToStream('s-1', [{ id: randomUUID(), type: 'A', data: {}, metadata: {} }], 'no_stream');
    const raw = new Database(path);
    expect(() => raw.prepare("UPDATE events SET type = 'B'").run()).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    raw.close();
    await store.close();
    dir.cleanup();
  });

  it('keeps events across a reopen and continues revisions and positions', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'events.db');
    const first = new SqliteEventStore(path, 'FULL');
    const appended = await first.appendToStream('s-1', [{ id: randomUUID(), type: 'A', data: { a: 1 }, metadata: {} }], 'no_stream');
    await first.close();
    const second = new SqliteEventStore(path, 'FULL');
    expect((await second.readStream('s-1')).events.map((e) => e.data)).toEqual([{ a: 1 }]);
    const next = await second.appendToStream('s-1', [{ id: randomUUID(), type: 'B', data: {}, metadata: {} }], 0n);
    expect(next.position).toBeGreaterThan(appended.position);
    await second.close();
    dir.cleanup();
  });

  it('runs in WAL mode with synchronous=FULL by default, so a 2xx means the event is on disk', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'events.db');
    const store = new SqliteEventStore(path, 'FULL');
    const probe = new Database(path);
    expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    probe.close();
    // synchronous is per connection: read it through the store's own connection.
    const connection = (store as unknown as { db: Database.Database }).db;
    expect(connection.pragma('synchronous', { simple: true })).toBe(2);
    await store.close();
    dir.cleanup();
  });
});
