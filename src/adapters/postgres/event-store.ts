import postgres from 'postgres';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamRead,
  SubscribeOptions,
} from '../../ports/event-store.js';
import type { Projection } from '../../ports/projection.js';
import { Wakeup } from '../../support/wakeup.js';
import { type EncodedAppend, encodeUnit } from '../append-rules.js';
import { appendUnit, streamRevision } from './append-unit.js';
import { type PostgresOptions, type PostgresPool, poolFor, type Sql, type TransactionSql } from './client.js';
import { EVENT_COLUMNS, type EventRow, toRecorded } from './event-rows.js';
import { EVENTS_STEPS } from './events-schema.js';
import { projectInTransaction } from './inline-projections.js';
import { migrate } from './migrations.js';
import { isPostgresUnavailable } from './unavailable.js';

export interface PostgresEventStoreOptions extends PostgresOptions {
  /**
   * The projections to fold into each append's own transaction, when the read models are in the same schema of the
   * same database; without them, the projector alone writes the read models.
   */
  projections?: readonly Projection[];
  /**
   * How often a subscriber reads the log when no notification came, in ms: NOTIFY wakes it at once, this only
   * covers one lost while its listening connection was down.
   */
  pollIntervalMs?: number;
}

/** Events a subscriber reads at a time. */
const SUBSCRIPTION_PAGE = 256;
/** The first key of the advisory lock every append to a schema's log takes (the second: the schema's hash). */
const APPEND_LOCK = 0x6e_6c_6f_67; // 'nlog'

/** A unit's caller gets its results, or its own refusal. */
function settle(waiting: WaitingUnit, outcome: Outcome): void {
  if ('results' in outcome) waiting.resolve(outcome.results);
  else waiting.reject(outcome.error);
}

/**
 * The log in a PostgreSQL schema (one per environment). Every append's transaction first takes one
 * transaction-scoped advisory lock on the schema's log, so appends from every process are serialised: positions
 * (an identity column) are drawn and committed in the same order, and a reader that has seen position n has seen
 * everything before it. Without the lock a sequence's numbers commit out of order, and a catch-up reader that read
 * 11 before 10 committed would skip 10 for ever. What it costs: one append transaction at a time per environment,
 * whatever the number of replicas (the lock is held for the append's few statements and its COMMIT, a synchronous
 * standby's acknowledgement included). The other way,
 * a transaction-id high-water mark (`pg_snapshot_xmin`), lets appends run together but holds every reader back
 * behind the oldest writing transaction of the whole database (a long read-model rebuild, say) and orders the log
 * by (transaction id, position), which a single bigint checkpoint cannot follow.
 *
 * Each append commits with a NOTIFY on the schema's channel, which wakes every subscriber of every process at once.
 */
export class PostgresEventStore implements EventStore {
  private readonly pool: PostgresPool;
  private readonly sql: Sql;
  private readonly ready: Promise<unknown>;
  private readonly pollIntervalMs: number;
  private readonly channel: string;
  private readonly appended = new Wakeup();
  /** Counts notifications, so one that comes while a subscriber reads is not missed. */
  private notifications = 0;
  private listening: Promise<{ unlisten(): Promise<void> }> | undefined;
  private closed = false;
  private readonly projections: readonly Projection[] | undefined;
  /** Units waiting for the next commit, and the commits under way (undefined when none is). */
  private readonly waiting: WaitingUnit[] = [];
  private committing: Promise<void> | undefined;
  /** The last position an append of this store committed with the projections' changes. */
  private projectedUpTo = -1n;

  constructor(
    url: string,
    private readonly schema: string,
    { pollIntervalMs = 1_000, projections, ...options }: PostgresEventStoreOptions = {},
  ) {
    this.projections = projections;
    this.pool = poolFor(url, schema, options);
    this.sql = this.pool.sql;
    this.pollIntervalMs = pollIntervalMs;
    this.channel = `nature_events_${schema}`;
    this.ready = migrate(this.sql, schema, 'events', EVENTS_STEPS);
    // Awaited by every call; a failure is theirs to report, not an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const [result] = await this.appendToStreams([{ streamName, events, expected }]);
    return result!;
  }

  /**
   * One command's appends: all of them land, or none does. Units that come while a commit is under way wait for the
   * next, which takes them all (up to MAX_UNITS_PER_COMMIT) in one transaction under the log's lock: one lock and one
   * WAL flush (a synchronous standby's acknowledgement included) for a burst, as the SQLite log's group commit. With
   * `projections`, the read models' changes commit in the same transaction when they can (inline-projections.ts).
   */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const unit = encodeUnit(appends);
    if (this.closed) throw new Error('the event store is closed');
    await this.ready;
    return new Promise((resolve, reject) => {
      this.waiting.push({ unit, resolve, reject });
      this.committing ??= this.commitWaiting().finally(() => {
        this.committing = undefined;
      });
    });
  }

  /** Commits the units waiting, a transaction at a time, until none is left. */
  private async commitWaiting(): Promise<void> {
    while (this.waiting.length > 0) await this.commitGroup(this.waiting.splice(0, MAX_UNITS_PER_COMMIT));
  }

  /**
   * Settles each unit of the group with its results or its own refusal (a revision not met). A statement that failed
   * aborts the transaction for all: then each unit is tried alone, so that only its own unit fails; a server that
   * does not answer fails them all.
   */
  private async commitGroup(group: WaitingUnit[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.commitTogether(group);
    } catch (error) {
      if (group.length === 1 || isPostgresUnavailable(error)) for (const waiting of group) waiting.reject(error);
      else await this.commitEachAlone(group);
      return;
    }
    for (const [i, outcome] of outcomes.entries()) settle(group[i]!, outcome);
  }

  /**
   * Each unit in a transaction of its own. Once the server stops answering, the units left fail with that at once:
   * each would otherwise wait the whole bound in turn, and every later append behind them.
   */
  private async commitEachAlone(group: WaitingUnit[]): Promise<void> {
    for (const [i, waiting] of group.entries()) {
      try {
        const [outcome] = await this.commitTogether([waiting]);
        settle(waiting, outcome!);
      } catch (error) {
        waiting.reject(error);
        if (!isPostgresUnavailable(error)) continue;
        for (const rest of group.slice(i + 1)) rest.reject(error);
        return;
      }
    }
  }

  private async commitTogether(group: readonly WaitingUnit[]): Promise<Outcome[]> {
    const inserted: RecordedEvent[] = [];
    let projected = false;
    // Bounded: every later append waits for this one, so one left unanswered would stop the log's writes for good.
    const outcomes = await this.pool.answered(
      this.sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${APPEND_LOCK}, hashtext(${this.schema}))`;
        const outcomes: Outcome[] = [];
        for (const { unit } of group) outcomes.push(await unitOutcome(tx, unit, inserted));
        if (inserted.length === 0) return outcomes;
        projected = this.projections !== undefined && (await this.projectInline(tx, this.projections, inserted));
        // Delivered at COMMIT, to every listener of every process, and not at all when the transaction rolls back.
        await tx`SELECT pg_notify(${this.channel}, '')`;
        return outcomes;
      }),
    );
    const last = inserted.at(-1)?.position;
    if (projected && last !== undefined && last > this.projectedUpTo) this.projectedUpTo = last;
    return outcomes;
  }

  /**
   * Whether the read models already hold the event at `position`, committed with an append of this store: a command
   * that appended it need not wait for the projector.
   */
  projectedWith(position: bigint): boolean {
    return position <= this.projectedUpTo;
  }

  /**
   * The projections folded in a savepoint: whatever goes wrong there (a deadlock with a projector's commit, say)
   * undoes only them, and the append commits as it would without them, left to the projector.
   */
  private async projectInline(tx: TransactionSql, projections: readonly Projection[], inserted: RecordedEvent[]): Promise<boolean> {
    try {
      return await tx.savepoint((inner) => projectInTransaction(inner, projections, inserted));
    } catch {
      return false;
    }
  }

  async readStream(streamName: string, { fromRevision = 0n }: ReadStreamOptions = {}): Promise<StreamRead> {
    await this.ready;
    const rows = await this.sql<EventRow[]>`
      SELECT ${this.sql(EVENT_COLUMNS)} FROM events
      WHERE stream_name = ${streamName} AND stream_revision >= ${fromRevision.toString()}
      ORDER BY stream_revision`;
    const events = rows.map(toRecorded);
    const revision = events.at(-1)?.revision ?? (fromRevision > 0n ? await streamRevision(this.sql, streamName) : -1n);
    return { revision, events };
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    await this.ready;
    const rows = await this.sql<EventRow[]>`
      SELECT ${this.sql(EVENT_COLUMNS)} FROM events WHERE position > ${(after ?? 0n).toString()}
      ORDER BY position LIMIT ${limit}`;
    return rows.map(toRecorded);
  }

  async *subscribeToAll({ after, signal }: SubscribeOptions): AsyncIterable<RecordedEvent> {
    // Listening before the first read, so an append that commits between a read and the wait still wakes it.
    await this.listen();
    let cursor = after ?? 0n;
    while (!signal.aborted) {
      const seen = this.notifications;
      const page = await this.readAll({ after: cursor, limit: SUBSCRIPTION_PAGE });
      for (const event of page) {
        if (signal.aborted) return;
        yield event;
        cursor = event.position;
      }
      if (signal.aborted) return;
      if (page.length < SUBSCRIPTION_PAGE && seen === this.notifications) await this.appended.wait(this.pollIntervalMs, signal);
    }
  }

  /** One listener per store, shared by its subscribers, on its pool's listening connection; the driver listens again after a reconnect. */
  private listen(): Promise<unknown> {
    this.listening ??= this.ready.then(() =>
      this.sql.listen(this.channel, () => {
        this.notifications += 1;
        this.appended.wake();
      }),
    );
    return this.listening;
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  /** Waits for the appends under way, stops listening, then lets the pool go (the last store closes it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.appended.wake();
    await this.ready.catch(() => undefined);
    await this.committing;
    await (await this.listening?.catch(() => undefined))?.unlisten();
    await this.pool.release();
  }
}

/** Units a group commit takes at most: bounds the time the log's lock is held, and the transaction's size. */
const MAX_UNITS_PER_COMMIT = 64;

interface WaitingUnit {
  unit: EncodedAppend[];
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

/** What a unit of a group commit came to: its results, or its own refusal, which leaves the others their commit. */
type Outcome = { results: AppendResult[] } | { error: unknown };

/** A unit's refusal (a revision not met, ids used elsewhere) is its own; a failed statement or a lost server is the group's. */
async function unitOutcome(tx: TransactionSql, unit: readonly EncodedAppend[], inserted: RecordedEvent[]): Promise<Outcome> {
  try {
    return { results: await appendUnit(tx, unit, inserted) };
  } catch (error) {
    if (error instanceof postgres.PostgresError || isPostgresUnavailable(error)) throw error;
    return { error };
  }
}
