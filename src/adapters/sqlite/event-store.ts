import type Database from 'better-sqlite3';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type StreamRead,
  type SubscribeOptions,
  WrongExpectedRevisionError,
} from '../../ports/event-store.js';
import { recordGroupCommit } from '../../support/runtime-figures.js';
import { TurnBatch } from '../../support/turn-batch.js';
import { Wakeup } from '../../support/wakeup.js';
import { type EncodedAppend, encodeUnit, previousAppend, revisionMatches } from '../append-rules.js';
import { openDatabase, type Synchronous } from './database.js';
import { EVENTS_FILE_STEPS } from './events-file.js';
import { migrate } from './migrations.js';

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

export interface SqliteEventStoreOptions {
  /** How often subscribers look for events appended by another process, in ms. */
  pollIntervalMs?: number;
}

/** A command's appends (one stream or several) as they wait for the next group commit: all land or none does. */
interface QueuedUnit {
  appends: EncodedAppend[];
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; results: AppendResult[] } | { ok: false; error: unknown };

/** Events a subscriber reads at a time. */
const SUBSCRIPTION_PAGE = 256;

/**
 * The log in one SQLite file. Appends are group-committed: those made during one turn of the event
 * loop (requests from several sockets included) are queued and written in the next one (setImmediate)
 * as one transaction, so they share one COMMIT and one fsync, which blocks the loop once per batch
 * rather than once per append. Each unit (one command's appends, to one stream or several) keeps its own
 * revision checks, in its own SAVEPOINT when it shares the batch, so a conflict or failure undoes that unit
 * alone, all of its streams' appends together; each caller is answered once the
 * COMMIT has returned, i.e. once its events are on disk at synchronous=FULL. Positions follow queue
 * order within a batch and commit order across batches, and readers see a batch all at once.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly pollIntervalMs: number;
  /** Wakes local subscribers as soon as a batch commits; other processes' appends are found by polling. */
  private readonly appended = new Wakeup();
  /** Counts local commits, so one that lands while a subscriber reads is not missed. */
  private commits = 0;
  private readonly queue = new TurnBatch<QueuedUnit>((batch) => this.commit(batch));
  private readonly statements;
  /** One unit: in a SAVEPOINT inside a batch's transaction, or (`.immediate`) as a transaction of its own. */
  private readonly appendUnit: Database.Transaction<(unit: QueuedUnit) => AppendResult[]>;
  private readonly commitBatch: (batch: QueuedUnit[]) => Outcome[];

  constructor(path: string, synchronous: Synchronous, options: SqliteEventStoreOptions = {}) {
    this.db = openDatabase(path, synchronous);
    migrate(this.db, path, EVENTS_FILE_STEPS);
    // Another process appends too (a replica, an operator command): a short poll keeps its writes quick to project.
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
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
        .prepare<[string, bigint], EventRow>('SELECT * FROM events WHERE stream_name = ? AND stream_revision >= ? ORDER BY stream_revision')
        .safeIntegers(true),
      readAll: this.db
        .prepare<[bigint, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?')
        .safeIntegers(true),
    };
    this.appendUnit = this.db.transaction((unit: QueuedUnit) => unit.appends.map((append) => this.appendInTransaction(append)));
    this.commitBatch = this.db.transaction((batch: QueuedUnit[]) => batch.map((unit) => this.attempt(unit))).immediate;
  }

  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const [result] = await this.appendToStreams([{ streamName, events, expected }]);
    return result!;
  }

  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    let encoded: EncodedAppend[];
    try {
      // Serialised now, so data that is not JSON fails its own unit rather than the batch.
      encoded = encodeUnit(appends);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!this.db.open) return Promise.reject(new Error('the event store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.add({ appends: encoded, resolve, reject });
    });
  }

  /** Commits a turn's appends in one transaction, then answers each caller. */
  private commit(batch: QueuedUnit[]): void {
    const started = performance.now();
    let outcomes: Outcome[];
    try {
      // Alone, a unit needs no SAVEPOINT: its transaction is its own.
      outcomes = batch.length === 1 ? [{ ok: true, results: this.appendUnit.immediate(batch[0]!) }] : this.commitBatch(batch);
    } catch (error) {
      // Nothing of the batch landed: its one unit failed, or BEGIN or COMMIT did (locked past busy_timeout, I/O).
      for (const unit of batch) unit.reject(error);
      return;
    }
    recordGroupCommit(batch.length, performance.now() - started);
    this.commits += 1;
    this.appended.wake();
    batch.forEach((unit, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) unit.resolve(outcome.results);
      else unit.reject(outcome.error);
    });
  }

  /** One unit's failure is its own, unless it ended the whole transaction (SQLite does on I/O errors). */
  private attempt(unit: QueuedUnit): Outcome {
    try {
      return { ok: true, results: this.appendUnit(unit) };
    } catch (error) {
      if (!this.db.inTransaction) throw error;
      return { ok: false, error };
    }
  }

  private appendInTransaction({ streamName, events, expected }: EncodedAppend): AppendResult {
    const replay = previousAppend(
      streamName,
      events.map((event) => this.statements.byEventId.get(event.id)),
    );
    if (replay) return replay;
    const current = this.statements.streamRevision.get(streamName)?.revision ?? -1n;
    if (!revisionMatches(expected, current)) throw new WrongExpectedRevisionError(streamName, expected, current);
    const recordedAt = new Date().toISOString();
    let revision = current;
    let position = 0n;
    for (const event of events) {
      revision += 1n;
      const info = this.statements.insert.run(event.id, streamName, revision, event.type, event.data, event.metadata, recordedAt);
      position = BigInt(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  }

  readStream(streamName: string, { fromRevision = 0n }: ReadStreamOptions = {}): Promise<StreamRead> {
    const events = this.statements.readStream.all(streamName, fromRevision).map(toRecorded);
    const revision =
      events.at(-1)?.revision ?? (fromRevision > 0n ? this.statements.streamRevision.get(streamName)?.revision : null) ?? -1n;
    return Promise.resolve({ revision, events });
  }

  readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    return Promise.resolve(this.readRows(after ?? 0n, limit));
  }

  private readRows(after: bigint, limit: number): RecordedEvent[] {
    return this.statements.readAll.all(after, limit).map(toRecorded);
  }

  async *subscribeToAll({ after, signal }: SubscribeOptions): AsyncIterable<RecordedEvent> {
    let cursor = after ?? 0n;
    while (!signal.aborted) {
      const seen = this.commits;
      const page = this.readRows(cursor, SUBSCRIPTION_PAGE);
      for (const event of page) {
        if (signal.aborted) return;
        yield event;
        cursor = event.position;
      }
      // An abort during the last yield has already fired: waiting now would last a whole poll.
      if (signal.aborted) return;
      if (page.length < SUBSCRIPTION_PAGE && seen === this.commits) await this.appended.wait(this.pollIntervalMs, signal);
    }
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  /** Commits what is still queued, then closes. */
  close(): Promise<void> {
    if (!this.db.open) return Promise.resolve();
    this.queue.flush();
    this.appended.wake();
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
