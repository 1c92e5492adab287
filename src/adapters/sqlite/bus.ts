import type Database from 'better-sqlite3';
import {
  type Bus,
  type BusMessage,
  type ConsumeOptions,
  DEFAULT_MAX_DELIVER,
  type Handler,
  runHandler,
  type Topic,
} from '../../ports/bus.js';
import { Wakeup } from '../../support/wakeup.js';
import { openDatabase, type Synchronous } from './database.js';
import { EVENTS_FILE_STEPS } from './events-file.js';
import { migrate } from './migrations.js';

interface Row {
  topic: Topic;
  id: string;
  payload: string;
  delivery_count: number;
}

export interface SqliteBusOptions {
  /** How often an idle consumer looks for due messages, in ms. */
  pollIntervalMs?: number;
  /** How long a handed-out message stays leased before another consumer may take it, in ms. */
  leaseMs?: number;
  maxDeliver?: number;
  /**
   * How long a done message's id is kept, so a republish of it is dropped, in ms. The publisher records each
   * publication in the log, so a republish only follows a crash between the two: minutes cover it.
   */
  duplicateWindowMs?: number;
}

/** NATS keeps its duplicate window for 2 minutes (adapters/nats/bus.ts); here a little longer. */
const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
/** Done messages deleted per statement, so a long backlog of them never holds the write lock for long. */
const PRUNE_BATCH = 500;

/**
 * A durable queue in an SQLite file. Published messages are committed before publish resolves (so a
 * SIGKILL loses none); a message is leased while its handler runs, and a lease that outlives its
 * process expires, so the message is delivered again. Done messages are kept for the duplicate window, so a
 * republished id is dropped, then deleted by the consumer; dead letters are kept for the operator.
 */
export class SqliteBus implements Bus {
  private readonly db: Database.Database;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly maxDeliver: number;
  private readonly duplicateWindowMs: number;
  /** When each topic's done messages were last deleted (Date.now()). */
  private readonly prunedAt: Record<Topic, number> = { events: 0, deliveries: 0 };
  /** Wakes a topic's idle consumer on a publish to it or a settled message of it. */
  private readonly changed: Record<Topic, Wakeup> = { events: new Wakeup(), deliveries: new Wakeup() };
  private readonly statements;

  constructor(path: string, synchronous: Synchronous, options: SqliteBusOptions = {}) {
    this.db = openDatabase(path, synchronous);
    migrate(this.db, path, EVENTS_FILE_STEPS);
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
    this.duplicateWindowMs = options.duplicateWindowMs ?? DUPLICATE_WINDOW_MS;
    this.statements = {
      publish: this.db.prepare<[Topic, string, string, number]>(
        'INSERT INTO bus_messages (topic, id, payload, available_at) VALUES (?, ?, ?, ?) ON CONFLICT (topic, id) DO NOTHING',
      ),
      due: this.db.prepare<[Topic, number, number, number], Row>(
        `SELECT topic, id, payload, delivery_count FROM bus_messages
         WHERE topic = ? AND state = 'ready' AND available_at <= ? AND (leased_until IS NULL OR leased_until <= ?)
         ORDER BY available_at LIMIT ?`,
      ),
      lease: this.db.prepare<[number, Topic, string]>(
        'UPDATE bus_messages SET leased_until = ?, delivery_count = delivery_count + 1 WHERE topic = ? AND id = ?',
      ),
      ack: this.db.prepare<[Topic, string]>("UPDATE bus_messages SET state = 'done', leased_until = NULL WHERE topic = ? AND id = ?"),
      retry: this.db.prepare<[number, Topic, string]>(
        'UPDATE bus_messages SET available_at = ?, leased_until = NULL WHERE topic = ? AND id = ?',
      ),
      defer: this.db.prepare<[number, Topic, string]>(
        'UPDATE bus_messages SET available_at = ?, leased_until = NULL, delivery_count = delivery_count - 1 WHERE topic = ? AND id = ?',
      ),
      renew: this.db.prepare<[number, Topic, string]>(
        "UPDATE bus_messages SET leased_until = ? WHERE topic = ? AND id = ? AND state = 'ready'",
      ),
      dead: this.db.prepare<[string, Topic, string]>(
        "UPDATE bus_messages SET state = 'dead', dead_reason = ?, leased_until = NULL WHERE topic = ? AND id = ?",
      ),
      // When the next message not in a handler's hands falls due (a retry, say). An expired lease is found by the poll.
      nextDue: this.db.prepare<[Topic], { available_at: number }>(
        "SELECT available_at FROM bus_messages WHERE topic = ? AND state = 'ready' AND leased_until IS NULL ORDER BY available_at LIMIT 1",
      ),
      prune: this.db.prepare<[Topic, number, number]>(
        `DELETE FROM bus_messages WHERE (topic, id) IN (
           SELECT topic, id FROM bus_messages WHERE topic = ? AND state = 'done' AND available_at <= ? LIMIT ?)`,
      ),
      release: this.db.prepare<[Topic]>("UPDATE bus_messages SET leased_until = NULL WHERE topic = ? AND state = 'ready'"),
      deadLetters: this.db.prepare<[Topic], { id: string; payload: string; dead_reason: string }>(
        "SELECT id, payload, dead_reason FROM bus_messages WHERE topic = ? AND state = 'dead' ORDER BY available_at",
      ),
    };
  }

  publish(topic: Topic, id: string, payload: unknown): Promise<void> {
    this.statements.publish.run(topic, id, JSON.stringify(payload), Date.now());
    this.changed[topic].wake();
    return Promise.resolve();
  }

  /**
   * One process consumes a topic of this file (the server's dispatcher), so leases found at the start
   * belong to a process that died: they are released at once instead of waiting for them to expire.
   */
  async consume(topic: Topic, handler: Handler, { signal, concurrency = 8, onError }: ConsumeOptions): Promise<void> {
    this.statements.release.run(topic);
    const running = new Set<Promise<void>>();
    try {
      // A closed bus (the process shutting down) stops consuming; its leases expire.
      while (!signal.aborted && this.db.open) {
        this.pruneDone(topic);
        const free = concurrency - running.size;
        const batch = free > 0 ? this.take(topic, free) : [];
        for (const message of batch) {
          // Woken once the slot is free: a wake-up before that would find no room and be lost.
          const work = this.handle(message, handler, onError).finally(() => {
            running.delete(work);
            this.changed[topic].wake();
          });
          running.add(work);
        }
        // Idle until a publish here or a finished handler (both wake), the next message's due time (with a
        // handler free to take it), the poll (for a publish by another process) or abort.
        if (running.size >= concurrency) await this.changed[topic].wait(this.pollIntervalMs, signal);
        else if (batch.length === 0) await this.changed[topic].wait(this.untilNextDue(topic), signal);
      }
    } finally {
      await Promise.allSettled(running);
    }
  }

  /**
   * Deletes the topic's done messages older than the duplicate window, every tenth of the window; a backlog (a
   * log from before pruning) a batch per pass of the consumer's loop, so deliveries go on meanwhile.
   */
  private pruneDone(topic: Topic): void {
    const now = Date.now();
    if (now - this.prunedAt[topic] < this.duplicateWindowMs / 10) return;
    const deleted = this.statements.prune.run(topic, now - this.duplicateWindowMs, PRUNE_BATCH).changes;
    if (deleted < PRUNE_BATCH) this.prunedAt[topic] = now;
  }

  private untilNextDue(topic: Topic): number {
    const next = this.statements.nextDue.get(topic);
    return next === undefined ? this.pollIntervalMs : Math.min(this.pollIntervalMs, Math.max(0, next.available_at - Date.now()));
  }

  /** Leases up to `limit` due messages, atomically, so two consumers never take the same one. */
  private take(topic: Topic, limit: number): BusMessage[] {
    return this.db
      .transaction(() => {
        const now = Date.now();
        return this.statements.due.all(topic, now, now, limit).map((row) => {
          this.statements.lease.run(now + this.leaseMs, topic, row.id);
          return { topic, id: row.id, payload: JSON.parse(row.payload), deliveryCount: row.delivery_count + 1 };
        });
      })
      .immediate();
  }

  /**
   * Never rejects: a message that cannot be settled keeps its lease, which expires, and comes again. The
   * lease is renewed while the handler runs, so a slow handler's message is not taken a second time.
   */
  private async handle(message: BusMessage, handler: Handler, onError: ConsumeOptions['onError']): Promise<void> {
    const renewal = setInterval(() => {
      try {
        if (this.db.open) this.statements.renew.run(Date.now() + this.leaseMs, message.topic, message.id);
        else clearInterval(renewal);
      } catch (error) {
        // The lease may then run out: the message comes again, as after a crash.
        onError?.(error, message);
      }
    }, this.leaseMs / 3).unref();
    const outcome = await runHandler(handler, message, this.maxDeliver, onError).finally(() => clearInterval(renewal));
    if (!this.db.open) return;
    try {
      if (outcome.kind === 'ack') this.statements.ack.run(message.topic, message.id);
      else if (outcome.kind === 'retry') this.statements.retry.run(Date.now() + outcome.delayMs, message.topic, message.id);
      else if (outcome.kind === 'defer') this.statements.defer.run(Date.now() + outcome.delayMs, message.topic, message.id);
      else this.statements.dead.run(outcome.reason, message.topic, message.id);
    } catch (error) {
      onError?.(error, message);
    }
  }

  deadLetters(topic: Topic) {
    return Promise.resolve(
      this.statements.deadLetters.all(topic).map((row) => ({ id: row.id, payload: JSON.parse(row.payload), reason: row.dead_reason })),
    );
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    for (const wakeup of Object.values(this.changed)) wakeup.wake();
    this.db.close();
    return Promise.resolve();
  }
}
