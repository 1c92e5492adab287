import {
  AckPolicy,
  type ConsumerConfig,
  ConsumerEvents,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamManager,
  JSONCodec,
  type JsMsg,
  type MsgHdrs,
  nanos,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from 'nats';
import type { Logger } from 'pino';
import type { Environment } from '../../domain/api-keys.js';
import {
  type Bus,
  type BusMessage,
  type ConsumeOptions,
  DEFAULT_MAX_DELIVER,
  type Handler,
  type Outcome,
  runHandler,
  type Topic,
  topics,
} from '../../ports/bus.js';
import type { NatsAccess } from '../../settings/config.js';
import { NatsLink } from './connection.js';
import { afterHop, DELAY_LEVELS_MS, type Delayed, type DelayLevel, firstHop } from './delays.js';
import { decodeDelayed, decodeEnvelope, type Envelope, undecodable } from './envelopes.js';
import { isNotFound, upsert } from './upsert.js';

export interface NatsBusOptions {
  /** Where NATS is and how to log in to it. */
  access: NatsAccess;
  environment: Environment;
  /** How long a delivered message may stay unacknowledged before NATS delivers it again. */
  ackWaitMs?: number;
  /** After this many deliveries a message goes dead (NATS's own max_deliver is one above, as a backstop). */
  maxDeliver?: number;
  /** Publishes of one message id within this window are stored once. */
  duplicateWindowMs?: number;
  /** How long connect waits for the server at start-up (NatsLink's CONNECT_TIMEOUT_MS by default). */
  connectTimeoutMs?: number;
  /** Copies of each stream in a NATS cluster (1 on a single server). */
  replicas?: number;
  /** Where a lost connection that cannot be made again is reported. */
  logger?: Logger;
  /** What the dead-letter stream keeps: the newest `maxMessages`, none older than `maxAgeMs`. */
  deadLetters?: { maxAgeMs: number; maxMessages: number };
  /**
   * Bounds on the work-queue and delay streams: at `maxBytes` a publish is refused (the publisher holds the
   * message back in the log and tries again), and a message older than `maxAgeMs` is dropped.
   */
  limits?: { maxBytes: number; maxAgeMs: number };
}

/**
 * How long each pull waits on the server; the server sends heartbeats every half of it. A consumer or stream
 * deleted under a pull is not always announced (nats-server #3969): two missed heartbeats then tell it, so this
 * bounds how long such a loss goes unnoticed (the client's default, 30 s, left webhooks waiting that long).
 */
const PULL_EXPIRES_MS = 10_000;

/** A week and a gigabyte: far beyond the default retry schedule (about 33 h in all), and bounded. */
export const STREAM_LIMITS = { maxBytes: 1_073_741_824, maxAgeMs: 7 * 24 * 3_600_000 };

/** Dead letters are for operators to look into: a month of them, at most 100,000. */
export const DEAD_LETTER_LIMITS = { maxAgeMs: 30 * 24 * 3_600_000, maxMessages: 100_000 };

/**
 * Retries up to this delay are delayed naks, held in the consumer's pending set; longer ones leave it for
 * the delay levels, since the pending set is capped (max_ack_pending) and a full one stops all delivery.
 */
const NAK_AT_MOST_MS = 1000;

/** Messages a delay level forwards at once. */
const FORWARDERS = 32;

const codec = JSONCodec<Envelope>();
const delayedCodec = JSONCodec<Delayed>();
const deadCodec = JSONCodec<Envelope & { reason: string }>();

/**
 * The bus on NATS JetStream. Per environment: a work-queue stream (`NATURE_TEST` with subjects
 * `nature.test.events` and `nature.test.deliveries`) with one durable pull consumer per topic and explicit
 * ack; a work-queue stream of delayed messages (`NATURE_TEST_DELAYED`, a subject and consumer per topic
 * and delay level, see delays.ts); and a dead-letter stream (`NATURE_TEST_DEAD`). Publishes carry the
 * message id as Nats-Msg-Id, so the stream's duplicate window drops repeats.
 *
 * A retry of more than a second is acked and published to the delay levels, which publish it back to its
 * topic when it is due: a thousand deliveries in back-off never fill the consumer's pending set. A handler
 * that runs long tells NATS it is working, so the ack wait does not hand its message to another.
 */
export class NatsBus implements Bus {
  private readonly stream: string;
  private readonly ackWaitMs: number;
  private readonly maxDeliver: number;
  private link!: NatsLink;
  /** A declaration under way after a stream or consumer was found missing: one at a time. */
  private redeclaring: Promise<void> | undefined;

  private constructor(private readonly options: NatsBusOptions) {
    this.stream = `NATURE_${options.environment.toUpperCase()}`;
    this.ackWaitMs = options.ackWaitMs ?? 60_000;
    this.maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  }

  /** Connects and declares the streams; fails within `connectTimeoutMs` if NATS cannot be reached. */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const bus = new NatsBus(options);
    bus.link = await NatsLink.open(
      options.access,
      `nature-${options.environment}`,
      (jsm) => bus.declare(jsm),
      options.connectTimeoutMs,
      options.logger,
    );
    return bus;
  }

  private get delayStream(): string {
    return `${this.stream}_DELAYED`;
  }

  private get deadStream(): string {
    return `${this.stream}_DEAD`;
  }

  private subject(topic: Topic): string {
    return `nature.${this.options.environment}.${topic}`;
  }

  private delaySubject(topic: Topic, level: DelayLevel): string {
    return `nature.${this.options.environment}.delayed.${topic}.${level}`;
  }

  private deadSubject(topic: Topic): string {
    return `nature.${this.options.environment}.dead.${topic}`;
  }

  /** Creates the streams and consumers, or brings an existing deployment's settings up to date. */
  private async declare(jsm: JetStreamManager): Promise<void> {
    const replicas = this.options.replicas ?? 1;
    const upsertStream = (config: Partial<StreamConfig> & { name: string }) =>
      upsert(
        () => jsm.streams.info(config.name),
        () => jsm.streams.update(config.name, config),
        () => jsm.streams.add(config),
      );
    const upsertConsumer = (stream: string, config: Partial<ConsumerConfig> & { durable_name: string }) =>
      upsert(
        () => jsm.consumers.info(stream, config.durable_name),
        () => jsm.consumers.update(stream, config.durable_name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver }),
        () => jsm.consumers.add(stream, config),
      );
    const deadLetters = this.options.deadLetters ?? DEAD_LETTER_LIMITS;
    const limits = this.options.limits ?? STREAM_LIMITS;
    // A full stream refuses new messages rather than dropping old ones: a refused publish is retried from the log.
    const bounded = { max_bytes: limits.maxBytes, max_age: nanos(limits.maxAgeMs), discard: DiscardPolicy.New };
    await upsertStream({
      name: this.stream,
      subjects: topics.map((topic) => this.subject(topic)),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(this.options.duplicateWindowMs ?? 2 * 60 * 1000),
      num_replicas: replicas,
      ...bounded,
    });
    await upsertStream({
      name: this.delayStream,
      subjects: topics.flatMap((topic) => DELAY_LEVELS_MS.map((level) => this.delaySubject(topic, level))),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(this.options.duplicateWindowMs ?? 2 * 60 * 1000),
      num_replicas: replicas,
      ...bounded,
    });
    await upsertStream({
      name: this.deadStream,
      subjects: topics.map((topic) => this.deadSubject(topic)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(deadLetters.maxAgeMs),
      max_msgs: deadLetters.maxMessages,
      // Bounded in bytes too (an account that requires it refuses a stream without), oldest dropped first.
      max_bytes: limits.maxBytes,
      discard: DiscardPolicy.Old,
      num_replicas: replicas,
    });
    const common = { ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(this.ackWaitMs) };
    for (const topic of topics) {
      await upsertConsumer(this.stream, {
        ...common,
        durable_name: topic,
        filter_subject: this.subject(topic),
        max_deliver: this.maxDeliver + 1,
      });
      for (const level of DELAY_LEVELS_MS) {
        // A delayed message is only forwarded: nothing limits how often it may be offered.
        await upsertConsumer(this.delayStream, {
          ...common,
          durable_name: delayConsumer(topic, level),
          filter_subject: this.delaySubject(topic, level),
          max_deliver: -1,
        });
      }
    }
  }

  /**
   * Declares the streams and consumers again after one was found missing (deleted by hand, or lost with a
   * server's store), without waiting for a reconnect.
   */
  private redeclare(): Promise<void> {
    this.redeclaring ??= this.declare(this.link.jsm).finally(() => (this.redeclaring = undefined));
    return this.redeclaring;
  }

  async publish(topic: Topic, id: string, payload: unknown): Promise<void> {
    await this.send(this.subject(topic), codec.encode({ id, payload }), { msgID: `${topic}:${id}` });
  }

  /** A JetStream publish; one that no stream took (its stream is gone) is sent again once the streams are declared again. */
  private async send(subject: string, data: Uint8Array, options: { msgID: string; headers?: MsgHdrs }): Promise<void> {
    try {
      await this.link.js.publish(subject, data, options).catch(explained);
    } catch (error) {
      if (!isNoStream(error)) throw error;
      await this.redeclare();
      await this.link.js.publish(subject, data, options).catch(explained);
    }
  }

  /**
   * Consumes the topic and forwards its delayed messages. When any part fails (a reconnect, a consumer
   * gone), all of it stops and the call rejects, for the caller to consume afresh.
   */
  async consume(topic: Topic, handler: Handler, { signal, concurrency = 8, onError }: ConsumeOptions): Promise<void> {
    const stop = new AbortController();
    const relay = () => stop.abort();
    signal.addEventListener('abort', relay, { once: true });
    if (signal.aborted) stop.abort();
    const parts = [
      this.pull(this.stream, topic, concurrency, stop.signal, (message) => this.handle(topic, message, handler, onError)),
      ...DELAY_LEVELS_MS.map((level) =>
        this.pull(this.delayStream, delayConsumer(topic, level), FORWARDERS, stop.signal, (message) =>
          this.forward(topic, message, onError),
        ),
      ),
    ].map((part) =>
      part.catch((error: unknown) => {
        stop.abort();
        throw error;
      }),
    );
    try {
      const failed = (await Promise.allSettled(parts)).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      signal.removeEventListener('abort', relay);
    }
  }

  /** Hands a durable consumer's messages to `handle`, `concurrency` at a time, until `signal` aborts; rejects if the messages stop coming. */
  private async pull(
    stream: string,
    durable: string,
    concurrency: number,
    signal: AbortSignal,
    handle: (message: JsMsg) => Promise<void>,
  ): Promise<void> {
    const consumer = await this.link.js.consumers.get(stream, durable).catch(async (error: unknown) => {
      // Declared again now, so the caller's next consume finds it.
      if (isNotFound(error)) await this.redeclare();
      throw error;
    });
    const messages = await consumer.consume({ max_messages: concurrency, expires: PULL_EXPIRES_MS });
    // The server may have dropped the pull the client is waiting on: after a reconnect, start afresh.
    const stopRenewed = this.link.onRenewed(() => messages.stop(new Error(`NATS connection renewed; consuming ${durable} afresh`)));
    const stop = () => messages.stop();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    void (async () => {
      for await (const { type } of await messages.status()) {
        // The consumer or its stream is gone: the next consume finds it missing and declares it again (not at
        // once: the server may still be deleting the stream, and would take a consumer declared now with it).
        if (type === ConsumerEvents.ConsumerDeleted || type === ConsumerEvents.ConsumerNotFound || type === ConsumerEvents.StreamNotFound) {
          messages.stop(new Error(`NATS consumer ${durable} of ${stream}: ${type}`));
        }
      }
    })();
    const running = new Set<Promise<void>>();
    try {
      for await (const message of messages) {
        const work = handle(message).finally(() => running.delete(work));
        running.add(work);
        // Pulled messages wait here until a handler slot is free.
        while (running.size >= concurrency) await Promise.race(running);
      }
    } finally {
      stopRenewed();
      signal.removeEventListener('abort', stop);
      await Promise.allSettled(running);
    }
    if (!signal.aborted) throw new Error(`NATS consumer ${durable} of ${stream} stopped delivering`);
  }

  /**
   * Never rejects: a message that cannot be settled (the connection dropped) comes again after ack_wait, and
   * one that is not the bus's own (not JSON, say) goes to the dead letters at once.
   */
  private async handle(topic: Topic, message: JsMsg, handler: Handler, onError: ConsumeOptions['onError']): Promise<void> {
    const decoded = decodeEnvelope(message.data);
    if (!decoded.ok) return this.poisoned(topic, message, decoded.reason, onError);
    const { id, payload, deliveries = 0 } = decoded.value;
    const busMessage: BusMessage = { topic, id, payload, deliveryCount: deliveries + message.info.redeliveryCount };
    const beat = this.keepAlive(message);
    try {
      const outcome = await runHandler(handler, busMessage, this.maxDeliver, onError);
      await this.settle(message, busMessage, outcome);
    } catch (error) {
      onError?.(error, busMessage);
    } finally {
      clearInterval(beat);
    }
  }

  private async settle(message: JsMsg, { topic, id, payload, deliveryCount }: BusMessage, outcome: Outcome): Promise<void> {
    switch (outcome.kind) {
      case 'ack':
        await message.ackAck();
        return;
      case 'retry':
        if (outcome.delayMs <= NAK_AT_MOST_MS) return message.nak(outcome.delayMs);
        return this.postpone(topic, message, { id, payload, deliveries: deliveryCount }, outcome.delayMs);
      case 'defer':
        // Not a delivery: the copy that comes back counts as this one did.
        return this.postpone(topic, message, { id, payload, deliveries: deliveryCount - 1 }, outcome.delayMs);
      case 'dead':
        await this.send(this.deadSubject(topic), deadCodec.encode({ id, payload, reason: outcome.reason }), {
          msgID: `dead:${topic}:${id}`,
        });
        message.term();
    }
  }

  /** A message the bus cannot read: kept as a dead letter, with why, and never offered again. */
  private async poisoned(topic: Topic, message: JsMsg, reason: string, onError: ConsumeOptions['onError']): Promise<void> {
    const id = `${message.info.stream}:${message.seq}`;
    const letter = { id, payload: undecodable(message.data), reason: `undecodable message on ${message.subject}: ${reason}` };
    try {
      await this.send(this.deadSubject(topic), deadCodec.encode(letter), { msgID: `dead:${topic}:${id}` });
      message.term();
    } catch (error) {
      onError?.(error, { topic, id, payload: letter.payload, deliveryCount: message.info.redeliveryCount });
    }
  }

  /** Acks the message once a copy waits in the delay levels, due after `delayMs`. */
  private async postpone(topic: Topic, message: JsMsg, envelope: Required<Envelope>, delayMs: number): Promise<void> {
    const { level, delayed } = firstHop(envelope, Date.now(), delayMs);
    await this.publishDelayed(topic, level, delayed);
    await message.ackAck();
  }

  private async publishDelayed(topic: Topic, level: DelayLevel, delayed: Delayed): Promise<void> {
    await this.send(this.delaySubject(topic, level), delayedCodec.encode(delayed), {
      msgID: `delayed:${topic}:${delayed.id}:${delayed.deliveries}:${delayed.dueAt}:${delayed.hop}`,
    });
  }

  /** A delay level's message: waits out its hop, then goes on to the next hop or back to its topic. */
  private async forward(topic: Topic, message: JsMsg, onError: ConsumeOptions['onError']): Promise<void> {
    const decoded = decodeDelayed(message.data);
    if (!decoded.ok) return this.poisoned(topic, message, decoded.reason, onError);
    const delayed = decoded.value;
    try {
      const now = Date.now();
      if (delayed.hopUntil > now) return message.nak(delayed.hopUntil - now);
      const next = afterHop(delayed, now);
      if (next.kind === 'hop') await this.publishDelayed(topic, next.level, next.next);
      else {
        const { id, payload, deliveries, dueAt } = delayed;
        await this.send(this.subject(topic), codec.encode({ id, payload, deliveries }), { msgID: `${topic}:${id}:${deliveries}:${dueAt}` });
      }
      await message.ackAck();
    } catch (error) {
      onError?.(error, { topic, id: delayed.id, payload: delayed.payload, deliveryCount: delayed.deliveries });
    }
  }

  /** Tells NATS, well within each ack wait, that the message is still being handled. */
  private keepAlive(message: JsMsg): NodeJS.Timeout {
    const beat = setInterval(() => {
      try {
        message.working();
      } catch {
        // Its connection closed: the message comes again after ack_wait, as after a crash.
        clearInterval(beat);
      }
    }, this.ackWaitMs / 3);
    return beat;
  }

  async deadLetters(topic: Topic) {
    const { jsm } = this.link;
    const info = await jsm.streams.info(this.deadStream);
    const letters: { id: string; payload: unknown; reason: string }[] = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const stored = await jsm.streams.getMessage(this.deadStream, { seq }).catch(() => undefined);
      if (stored?.subject === this.deadSubject(topic)) {
        const { id, payload, reason } = deadCodec.decode(stored.data);
        letters.push({ id, payload, reason });
      }
    }
    return letters;
  }

  async ping(): Promise<void> {
    await this.link.nc.rtt();
  }

  close(): Promise<void> {
    return this.link.close();
  }
}

function delayConsumer(topic: Topic, level: DelayLevel): string {
  return `${topic}-${level}`;
}

/** A stream's refusal says why (the client's own message is a bare "503"); the code and API error stay. */
function explained(error: unknown): never {
  const description = (error as { api_error?: { description?: unknown } }).api_error?.description;
  if (typeof description === 'string' && error instanceof Error) error.message = `the stream refused the message: ${description}`;
  throw error;
}

/**
 * A JetStream publish no stream answered: no stream listens on the subject (any more). A stream that answered
 * with an error (a full one, say) answers with a 503 too, but carries the server's API error.
 */
function isNoStream(error: unknown): boolean {
  const { code, api_error } = (error ?? {}) as { code?: unknown; api_error?: unknown };
  return code === '503' && api_error === undefined;
}
