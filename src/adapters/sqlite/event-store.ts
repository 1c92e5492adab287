import type Database from 'better-sqlite3';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamRead,
  type SubscribeOptions,
  WrongExpectedRevisionError,
} from '../../ports/event-store.js';
import { openDatabase, type Synchronous } from './database.js';
import { Wakeup } from './wakeup.js';

interface EventRow {
  position: bigint;
  event_id: string;
  stream_name: string;
  stream_revision: bigint;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

/** Triggers that refuse to change or remove an event; only a format migration lifts them, inside its transaction. */
export const APPEND_ONLY = `
CREATE TRIGGER IF NOT EXISTS events_are_never_updated BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_are_never_deleted BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position        INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id        TEXT    NOT NULL UNIQUE,
  stream_name     TEXT    NOT NULL,
  stream_revision INTEGER NOT NULL,
  type            TEXT    NOT NULL,
  data            TEXT    NOT NULL,
  metadata        TEXT    NOT NULL,
  recorded_at     TEXT    NOT NULL,
  UNIQUE (stream_name, stream_revision)
);
${APPEND_ONLY}`;

export interface SqliteEventStoreOptions {
  /** How often to look for events appended by another process, in ms. */
  pollIntervalMs?: number;
}

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly pollIntervalMs: number;
  /** Wakes local subscribers as soon as an append commits. */
  private readonly appended = new Wakeup();
  /** Counts local appends, so an append that lands while a subscriber reads is not missed. */
  private appends = 0;
  private readonly statements;

  constructor(path: string, synchronous: Synchronous, options: SqliteEventStoreOptions = {}) {
    this.db = openDatabase(path, synchronous);
    this.db.exec(SCHEMA);
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.statements = {
      streamRevision: this.db
        .prepare<[string], { revision: bigint | null }>('SELECT max(stream_revision) AS revision FROM events WHERE stream_name = ?')
        .safeIntegers(true),
      byEventId: this.db
        .prepare<[string], Pick<EventRow, 'stream_name' | 'stream_revision' | 'position'>>(
          'SELECT stream_name, stream_revision, position FROM events WHERE event_id = ?',
        )
        .safeIntegers(true),
      insert: this.db
        .prepare<[string, string, bigint, string, string, string, string]>(
          `INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, recorded_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .safeIntegers(true),
      readStream: this.db
        .prepare<[string], EventRow>('SELECT * FROM events WHERE stream_name = ? ORDER BY stream_revision')
        .safeIntegers(true),
      readAll: this.db
        .prepare<[bigint, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?')
        .safeIntegers(true),
    };
  }

  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    // better-sqlite3 is synchronous: the transaction (BEGIN IMMEDIATE) has committed when this returns.
    const result = this.db.transaction(() => this.appendInTransaction(streamName, events, expected)).immediate();
    this.wake();
    return result;
  }

  private appendInTransaction(streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    const replay = this.previousAppend(streamName, events);
    if (replay) return replay;
    const current = this.statements.streamRevision.get(streamName)?.revision ?? -1n;
    const matches = expected === 'any' || (expected === 'no_stream' ? current === -1n : current === expected);
    if (!matches) throw new WrongExpectedRevisionError(streamName, expected, current);
    const recordedAt = new Date().toISOString();
    let revision = current;
    let position = 0n;
    for (const event of events) {
      revision += 1n;
      const info = this.statements.insert.run(
        event.id,
        streamName,
        revision,
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
        recordedAt,
      );
      position = BigInt(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  }

  /** The same event ids appended again to the same stream (a retried request) are stored once. */
  private previousAppend(streamName: string, events: NewEvent[]): AppendResult | undefined {
    const rows = events.map((event) => this.statements.byEventId.get(event.id));
    if (rows.every((row) => row === undefined)) return undefined;
    const first = rows[0];
    const sameAppend =
      first !== undefined &&
      rows.every((row, i) => row?.stream_name === streamName && row.stream_revision === first.stream_revision + BigInt(i));
    if (!sameAppend) throw new Error(`event ids already used elsewhere in the log (stream ${streamName})`);
    const last = rows[rows.length - 1]!;
    return { nextRevision: last.stream_revision, position: last.position };
  }

  readStream(streamName: string): Promise<StreamRead> {
    const events = this.statements.readStream.all(streamName).map(toRecorded);
    return Promise.resolve({ revision: events.at(-1)?.revision ?? -1n, events });
  }

  readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    return Promise.resolve(this.statements.readAll.all(after ?? 0n, limit).map(toRecorded));
  }

  async *subscribeToAll({ after, signal }: SubscribeOptions): AsyncIterable<RecordedEvent> {
    const pageSize = 256;
    let cursor = after ?? 0n;
    while (!signal.aborted) {
      const seen = this.appends;
      const page = await this.readAll({ after: cursor, limit: pageSize });
      for (const event of page) {
        if (signal.aborted) return;
        yield event;
        cursor = event.position;
      }
      if (page.length < pageSize && seen === this.appends) await this.appended.wait(this.pollIntervalMs, signal);
    }
  }

  private wake(): void {
    this.appends += 1;
    this.appended.wake();
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.wake();
    this.db.close();
    return Promise.resolve();
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamName: row.stream_name,
    revision: row.stream_revision,
    position: row.position,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    recordedAt: row.recorded_at,
  };
}
