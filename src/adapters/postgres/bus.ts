import { randomUUID } from 'node:crypto';
import {
  type Bus,
  type BusMessage,
  type ConsumeOptions,
  DEFAULT_MAX_DELIVER,
  type Handler,
  type Outcome,
  runHandler,
  type Topic,
} from '../../ports/bus.js';
import { Wakeup } from '../../support/wakeup.js';
import { BUS_STEPS } from './bus-schema.js';
import type { PostgresOptions, PostgresPool, Sql } from './client.js';
import { migratedPool } from './migrations.js';

export interface PostgresBusOptions {
  /**
   * How often an idle consumer looks for due messages when nothing woke it, in ms: a publish wakes every consumer
   * by NOTIFY, and a retry or a claim falls due at a time the consumer knows; this covers a notification lost while
   * the listening connection was down, and a retry scheduled by another replica that then died.
   */
  pollIntervalMs?: number;
  /** How long a claimed message stays its consumer's before another may take it, in ms; renewed while handled. */
  claimMs?: number;
  maxDeliver?: number;
  /** How long a done message's id is kept, so a republish of it is dropped, in ms (as on SQLite). */
  duplicateWindowMs?: number;
}

interface ClaimedRow {
  id: string;
  payload: unknown;
  delivery_count: number;
}

/** A claimed message and the claim that lets its consumer settle it. */
type Claimed = BusMessage & { claim: string };

/** As on SQLite (adapters/sqlite/bus.ts): a republish only follows a crash between a publish and its record. */
const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
/** Done messages deleted per statement, so a backlog of them never holds many row locks for long. */
const PRUNE_BATCH = 500;
/** A wake-up that remembers it came: one that comes while the consumer queries is not lost before it waits. */
class Changes {
  private count = 0;
  private readonly wakeup = new Wakeup();
  get seen(): number {
    return this.count;
  }
  note(): void {
    this.count += 1;
    this.wakeup.wake();
  }
  /** Waits for a change after `since` (at once if one came), `timeoutMs` at most, or the abort. */
  wait(since: number, timeoutMs: number, signal: AbortSignal): Promise<void> {
    // An abort that came while the consumer queried fires no event any more: it would wait out the timeout.
    return since === this.count && !signal.aborted ? this.wakeup.wait(timeoutMs, signal) : Promise.resolve();
  }
}

/**
 * A durable queue in a PostgreSQL schema (one per environment), shared by every replica's consumers. A publish
 * commits the message, and a NOTIFY on the schema's channel that wakes every consumer, before it resolves. A
 * consumer claims due messages in one statement whose `FOR UPDATE SKIP LOCKED` lets consumers claiming at the same
 * moment take different messages instead of queueing on each other's row locks; the claim itself is a column
 * (`claimed_until`), since a handler runs far longer than a transaction should stay open. It is renewed while the
 * handler runs; one that lapses (its process died) lets another consumer take the message, a delivery more.
 */
export class PostgresBus implements Bus {
  private readonly channel: string;
  private readonly changes: Record<Topic, Changes> = { events: new Changes(), deliveries: new Changes() };
  private readonly prunedAt: Record<Topic, number> = { events: 0, deliveries: 0 };
  private closed = false;

  private readonly sql: Sql;

  private constructor(
    private readonly pool: PostgresPool,
    schema: string,
    private readonly options: Required<PostgresBusOptions>,
  ) {
    this.sql = pool.sql;
    this.channel = `nature_bus_${schema}`;
  }

  /** A bus in `schema`, its table made or brought up to date first. */
  static async connect(url: string, schema: string, options: PostgresBusOptions & PostgresOptions = {}): Promise<PostgresBus> {
    // The schema's pool, shared with the log and the other stores of the process (client.ts, poolFor).
    const { passwordFile, max, answerWithinMs } = options;
    const pool = await migratedPool(url, schema, 'bus', BUS_STEPS, { passwordFile, max, answerWithinMs });
    return new PostgresBus(pool, schema, {
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      claimMs: options.claimMs ?? 60_000,
      maxDeliver: options.maxDeliver ?? DEFAULT_MAX_DELIVER,
      duplicateWindowMs: options.duplicateWindowMs ?? DUPLICATE_WINDOW_MS,
    });
  }

  async publish(topic: Topic, id: string, payload: unknown): Promise<void> {
    // The NOTIFY goes out at COMMIT, and only when the message is new: a republished id wakes nobody. The payload
    // goes as text (a json parameter the driver would encode again), kept as written.
    await this.bounded(this.sql`
      WITH inserted AS (
        INSERT INTO bus_messages (topic, id, payload) VALUES (${topic}, ${id}, ${JSON.stringify(payload)}::text::json)
        ON CONFLICT (topic, id) DO NOTHING RETURNING topic)
      SELECT pg_notify(${this.channel}, topic) FROM inserted`);
    // This process's consumer at once, whether or not its listening connection is up.
    this.changes[topic].note();
  }

  /**
   * Claims and hands on due messages until the signal aborts, then waits for the handlers under way. Rejects when
   * the server stops answering (the dispatcher consumes again): the messages its handlers held are claimed again
   * once their claims lapse. Other consumers of the topic, in this process or another, share its messages.
   */
  async consume(topic: Topic, handler: Handler, { signal, concurrency = 8, onError }: ConsumeOptions): Promise<void> {
    const changes = this.changes[topic];
    // Listening before the first claim, so a publish that commits between a claim and the wait still wakes it; a
    // listen again after the connection came back (onlisten) looks for what was published meanwhile.
    const listening = await this.sql.listen(
      this.channel,
      (notified) => notified === topic && changes.note(),
      () => changes.note(),
    );
    const running = new Set<Promise<void>>();
    try {
      while (!signal.aborted && !this.closed) {
        const since = changes.seen;
        await this.pruneDone(topic);
        const free = concurrency - running.size;
        const batch = free > 0 ? await this.claim(topic, free) : [];
        for (const message of batch) {
          // Noted once the slot is free: a wake-up before that would find no room.
          const work = this.handle(message, handler, onError).finally(() => {
            running.delete(work);
            changes.note();
          });
          running.add(work);
        }
        if (running.size >= concurrency) await changes.wait(since, this.options.pollIntervalMs, signal);
        else if (batch.length === 0) await changes.wait(since, await this.untilNextDue(topic), signal);
      }
    } finally {
      await Promise.allSettled(running);
      await listening.unlisten().catch(() => undefined);
    }
  }

  /** Claims up to `limit` due messages, a lapsed claim's among them, in one statement. */
  private async claim(topic: Topic, limit: number): Promise<Claimed[]> {
    const claim = randomUUID();
    const rows = await this.bounded(this.sql<ClaimedRow[]>`
      UPDATE bus_messages AS m
      SET claimed_until = now() + ${this.options.claimMs}::double precision * interval '1 millisecond',
          claim = ${claim}, delivery_count = m.delivery_count + 1
      FROM (SELECT topic, id FROM bus_messages
            WHERE topic = ${topic} AND state = 'ready' AND available_at <= now()
              AND (claimed_until IS NULL OR claimed_until <= now())
            ORDER BY available_at LIMIT ${limit}
            FOR UPDATE SKIP LOCKED) AS due
      WHERE m.topic = due.topic AND m.id = due.id
      RETURNING m.id, m.payload, m.delivery_count`);
    return rows.map((row) => ({ topic, id: row.id, payload: row.payload, deliveryCount: row.delivery_count, claim }));
  }

  /**
   * How long until the topic's next message falls due, or the next claim lapses (one of a process that died: this
   * consumer's own are renewed before then), the poll interval at most.
   */
  private async untilNextDue(topic: Topic): Promise<number> {
    const [row] = await this.bounded(this.sql<{ ms: number | null }[]>`
      SELECT extract(epoch FROM least(
        (SELECT min(available_at) FROM bus_messages WHERE topic = ${topic} AND state = 'ready' AND claimed_until IS NULL),
        (SELECT min(claimed_until) FROM bus_messages WHERE topic = ${topic} AND state = 'ready' AND claimed_until IS NOT NULL)
      ) - now())::float8 * 1000 AS ms`);
    const ms = row?.ms;
    return ms === null || ms === undefined ? this.options.pollIntervalMs : Math.min(this.options.pollIntervalMs, Math.max(0, ms));
  }

  /** Deletes the topic's done messages older than the duplicate window, every tenth of the window, a batch at a time. */
  private async pruneDone(topic: Topic): Promise<void> {
    const now = Date.now();
    if (now - this.prunedAt[topic] < this.options.duplicateWindowMs / 10) return;
    const deleted = await this.bounded(this.sql`
      DELETE FROM bus_messages WHERE (topic, id) IN (
        SELECT topic, id FROM bus_messages
        WHERE topic = ${topic} AND state = 'done'
          AND settled_at <= now() - ${this.options.duplicateWindowMs}::double precision * interval '1 millisecond'
        LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`);
    if (deleted.count < PRUNE_BATCH) this.prunedAt[topic] = now;
  }

  /**
   * Never rejects: a message that cannot be settled keeps its claim, which lapses, and comes again. A message
   * delivered more often than allowed without a verdict (its handlers' processes died) goes dead unhandled.
   */
  private async handle({ claim, ...message }: Claimed, handler: Handler, onError: ConsumeOptions['onError']): Promise<void> {
    const outcome: Outcome =
      message.deliveryCount > this.options.maxDeliver
        ? { kind: 'dead', reason: `no success after ${this.options.maxDeliver} deliveries` }
        : await this.run(message, claim, handler, onError);
    if (this.closed) return;
    try {
      if (!(await this.bounded(this.settle(message, claim, outcome))))
        onError?.(new Error('its claim lapsed before its handler settled it; another consumer has it'), message);
    } catch (error) {
      onError?.(error, message);
    }
  }

  /** The handler's verdict, the claim renewed meanwhile so that a slow handler's message is not taken a second time. */
  private async run(message: BusMessage, claim: string, handler: Handler, onError: ConsumeOptions['onError']): Promise<Outcome> {
    const renewal = setInterval(() => {
      if (this.closed) clearInterval(renewal);
      // A renewal that fails may let the claim lapse: the message comes again, as after a crash.
      else this.renew(message, claim).catch((error: unknown) => onError?.(error, message));
    }, this.options.claimMs / 3).unref();
    try {
      return await runHandler(handler, message, this.options.maxDeliver, onError);
    } finally {
      clearInterval(renewal);
    }
  }

  /** Keeps the claim another `claimMs`, if it still holds. */
  private async renew({ topic, id }: BusMessage, claim: string): Promise<void> {
    await this.bounded(this.sql`
      UPDATE bus_messages SET claimed_until = now() + ${this.options.claimMs}::double precision * interval '1 millisecond'
      WHERE topic = ${topic} AND id = ${id} AND claim = ${claim} AND state = 'ready'`);
  }

  /** Records the handler's verdict if the claim still holds; answers whether it did. */
  private async settle({ topic, id }: BusMessage, claim: string, outcome: Outcome): Promise<boolean> {
    const mine = this.sql`topic = ${topic} AND id = ${id} AND claim = ${claim} AND state = 'ready'`;
    const after = (ms: number) => this.sql`now() + ${ms}::double precision * interval '1 millisecond'`;
    const released = this.sql`claimed_until = NULL, claim = NULL`;
    let result: { count: number };
    switch (outcome.kind) {
      case 'ack':
        result = await this.sql`UPDATE bus_messages SET state = 'done', settled_at = now(), ${released} WHERE ${mine}`;
        break;
      case 'retry':
        result = await this.sql`UPDATE bus_messages SET available_at = ${after(outcome.delayMs)}, ${released} WHERE ${mine}`;
        break;
      case 'defer':
        // Not handled at all: the delivery does not count.
        result = await this.sql`
          UPDATE bus_messages SET available_at = ${after(outcome.delayMs)}, delivery_count = delivery_count - 1, ${released}
          WHERE ${mine}`;
        break;
      default:
        result = await this.sql`
          UPDATE bus_messages SET state = 'dead', dead_reason = ${outcome.reason}, settled_at = now(), ${released} WHERE ${mine}`;
    }
    return result.count === 1;
  }

  /**
   * `query`, or a failure once the pool's answerWithinMs has passed. Postgres.js 3.4.9 can leave a query on a
   * connection the server dropped unanswered for good (porsager/postgres#1199, #1208): a consumer waiting on it would
   * stop for good, a handler waiting on its settlement would hold its slot for good. Failed instead, the consumer
   * starts again (the dispatcher consumes again) on another connection, and an unsettled message comes again when
   * its claim lapses.
   */
  private bounded<T>(query: Promise<T>): Promise<T> {
    return this.pool.answered(query);
  }

  async deadLetters(topic: Topic): Promise<{ id: string; payload: unknown; reason: string }[]> {
    const rows = await this.sql<{ id: string; payload: unknown; dead_reason: string }[]>`
      SELECT id, payload, dead_reason FROM bus_messages WHERE topic = ${topic} AND state = 'dead' ORDER BY settled_at, id`;
    return rows.map((row) => ({ id: row.id, payload: row.payload, reason: row.dead_reason }));
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  /** Stops the consumers (their handlers' claims lapse if they never settle) and lets the pool go. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const changes of Object.values(this.changes)) changes.note();
    await this.pool.release();
  }
}
