import { join } from 'node:path';
import { STREAM_DOES_NOT_EXIST } from '@event-driven-io/emmett';
import {
  createEventStoreSchema,
  appendToStream as emmettAppend,
  readStream as emmettRead,
  getSQLiteEventStore,
  sqliteConnection,
} from '@event-driven-io/emmett-sqlite';
import Database from 'better-sqlite3';
import sqlite3 from 'sqlite3';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { EVENTS_TABLE } from '../../src/adapters/sqlite/events-file.js';
import type { BenchEvent } from './store-event.js';

/** One event store under test: appends to new streams, reads whole streams. */
export interface StoreUnderTest {
  append(stream: string, events: BenchEvent[]): Promise<unknown>;
  read(stream: string): Promise<number>;
  close(): Promise<void>;
}

export interface StoreKind {
  name: string;
  /** False for a synchronous store, whose concurrent callers would only take turns. */
  concurrent: boolean;
  open(dir: string): Promise<StoreUnderTest>;
}

export const ours: StoreKind = {
  name: 'ours (SqliteEventStore)',
  concurrent: true,
  open(dir) {
    const store = new SqliteEventStore(join(dir, 'ours.db'), 'FULL');
    return Promise.resolve({
      append: (stream, events) => store.appendToStream(stream, events, 'no_stream'),
      read: async (stream) => (await store.readStream(stream)).events.length,
      close: () => store.close(),
    });
  },
};

interface RawRow {
  data: string;
  metadata: string;
}

/** The ceiling: better-sqlite3, WAL, synchronous=FULL, one transaction per append and nothing else. */
export const raw: StoreKind = {
  name: 'raw better-sqlite3',
  concurrent: false,
  open(dir) {
    const db = new Database(join(dir, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(EVENTS_TABLE);
    const insert = db.prepare<[string, string, number, string, string, string, string]>(
      'INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const select = db.prepare<[string], RawRow>('SELECT * FROM events WHERE stream_name = ? ORDER BY stream_revision');
    const append = db.transaction((stream: string, events: BenchEvent[]) => {
      const now = new Date().toISOString();
      for (const [revision, event] of events.entries()) {
        insert.run(event.id, stream, revision, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata), now);
      }
    });
    return Promise.resolve({
      append: (stream, events) => Promise.resolve(append.immediate(stream, events)),
      read: (stream) => Promise.resolve(select.all(stream).map((row) => [JSON.parse(row.data), JSON.parse(row.metadata)]).length),
      close: () => {
        db.close();
        return Promise.resolve();
      },
    });
  },
};

/**
 * Emmett opens its sqlite3 connections itself (a new one per call, as shipped) and sets only
 * journal_mode=WAL. SQLite's default is already synchronous=FULL, but the comparison must not rest on a
 * build default: every connection sqlite3 opens in this process runs `PRAGMA synchronous = FULL` first
 * (`exec` is exclusive in node-sqlite3, so it runs before any statement queued after it).
 */
class FullSyncDatabase extends sqlite3.Database {
  constructor(...args: ConstructorParameters<typeof sqlite3.Database>) {
    super(...args);
    this.exec('PRAGMA synchronous = FULL');
  }
}
Object.defineProperty(sqlite3, 'Database', { value: FullSyncDatabase, writable: true, configurable: true });

const toMessages = (events: BenchEvent[]) => events.map(({ type, data, metadata }) => ({ type, data, metadata }));

/** Emmett's SQLite event store as its README has it: getSQLiteEventStore({ fileName }). */
export const emmettShipped: StoreKind = {
  name: 'Emmett as shipped',
  concurrent: true,
  open(dir) {
    const store = getSQLiteEventStore({ fileName: join(dir, 'emmett-shipped.db') });
    return Promise.resolve({
      append: (stream, events) => store.appendToStream(stream, toMessages(events), { expectedStreamVersion: STREAM_DOES_NOT_EXIST }),
      read: async (stream) => (await store.readStream(stream)).events.length,
      close: () => Promise.resolve(),
    });
  },
};

/**
 * Emmett's store functions over one connection kept open: getSQLiteEventStore takes no connection, so
 * this calls the functions it exports (appendToStream, readStream), which take one.
 */
export const emmettConnection: StoreKind = {
  name: 'Emmett, one connection',
  concurrent: true,
  async open(dir) {
    const connection = sqliteConnection({ fileName: join(dir, 'emmett-connection.db') });
    await createEventStoreSchema(connection);
    return {
      append: (stream, events) =>
        emmettAppend(connection, stream, 'bench', toMessages(events), { expectedStreamVersion: STREAM_DOES_NOT_EXIST }),
      read: async (stream) => (await emmettRead(connection, stream)).events.length,
      close: () => Promise.resolve(connection.close()),
    };
  },
};

/** What synchronous level a connection that Emmett would open gets: 2 is FULL. */
export async function emmettSynchronous(dir: string): Promise<number | undefined> {
  const connection = sqliteConnection({ fileName: join(dir, 'probe.db') });
  const row = await connection.querySingle<{ synchronous: number }>('PRAGMA synchronous');
  connection.close();
  return row?.synchronous;
}
