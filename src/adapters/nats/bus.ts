import {
  AckPolicy,
  ConsumerEvents,
  type ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamManager,
  type JsMsg,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
  nanos,
} from 'nats';
import type { Environment } from '../../domain/api-keys.js';
import { type Bus, type BusMessage, type ConsumeOptions, DEFAULT_MAX_DELIVER, type Handler, type Outcome, type Topic, runHandler, topics } from '../../ports/bus.js';
import { NatsLink } from './connection.js';
import { DELAY_LEVELS_MS, type DelayLevel, type Delayed, afterHop, firstHop } from './delays.js';

export interface NatsBusOptions {
  url: string;
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
  /** What the dead-letter stream keeps: the newest `maxMessages`, none older than `maxAgeMs`. */
  deadLetters?: { maxAgeMs: number; maxMessages: number };
}

/** Dead letters are for operators to look into: a month of them, at most 100,000. */
export const DEAD_LETTER_LIMITS = { maxAgeMs: 30 * 24 * 3_600_000, maxMessages: 100_000 };

/**
 * Retries up to this delay are delayed naks, held in the consumer's pending set; longer ones leave it for
 * the delay levels, since the pending set is capped (max_ack_pending) and a full one stops all delivery.
 */
const NAK_AT_MOST_MS = 1000;

/** Messages a delay level forwards at once. */
const FORWARDERS = 32;

interface Envelope {
  id: string;
  payload: unknown;
  /** Deliveries before this copy, for a message that came back from the delay levels. */
  deliveries?: number;
}

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

  private constructor(private readonly options: NatsBusOptions) {
    this.stream = `NATURE_${options.environment.toUpperCase()}`;
    this.ackWaitMs = options.ackWaitMs ?? 60_000;
    this.maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  }

  /** Connects and declares the streams; fails within `connectTimeoutMs` if NATS cannot be reached. */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const bus = new NatsBus(options);
    bus.link = await NatsLink.open(options.url, `nature-${options.environment}`, (jsm) => bus.declare(jsm), options.connectTimeoutMs);
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
    const upsertStream = async (config: Partial<StreamConfig> & { name: string }) => {
      try {
        await jsm.streams.info(config.name);
        await jsm.streams.update(config.name, config);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await jsm.streams.add(config);
      }
    };
    const upsertConsumer = async (stream: string, config: Partial<ConsumerConfig> & { durable_name: string }) => {
      try {
        await jsm.consumers.info(stream, config.durable_name);
        await jsm.consumers.update(stream, config.durable_name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await jsm.consumers.add(stream, config);
      }
    };
    const deadLetters = this.options.deadLetters ?? DEAD_LETTER_LIMITS;
    await upsertStream({
      name: this.stream,
      subjects: topics.map((topic) => this.subject(topic)),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(this.options.duplicateWindowMs ?? 2 * 60 * 1000),
      num_replicas: replicas,
    });
    await upsertStream({
      name: this.delayStream,
      subjects: topics.flatMap((topic) => DELAY_LEVELS_MS.map((level) => this.delaySubject(topic, level))),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(this.options.duplicateWindowMs ?? 2 * 60 * 1000),
      num_replicas: replicas,
    });
    await upsertStream({
      name: this.deadStream,
      subjects: topics.map((topic) => this.deadSubject(topic)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(deadLetters.maxAgeMs),
      max_msgs: deadLetters.maxMessages,
      discard: DiscardPolicy.Old,
      num_replicas: replicas,
    });
    const common = { ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(this.ackWaitMs) };
    for (const topic of topics) {
      await upsertConsumer(this.stream, { ...common, durable_name: topic, filter_subject: this.subject(topic), max_deliver: this.maxDeliver + 1 });
      for (const level of DELAY_LEVELS_MS) {
        // A delayed message is only forwarded: nothing limits how often it may be offered.
        await upsertConsumer(this.delayStream, { ...common, durable_name: delayConsumer(topic, level), filter_subject: this.delaySubject(topic, level), max_deliver: -1 });
      }
    }
  }

  async publish(topic: Topic, id: string, payload: unknown): Promise<void> {
    await this.link.js.publish(this.subject(topic), codec.encode({ id, payload }), { msgID: `${topic}:${id}` });
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
        this.pull(this.delayStream, delayConsumer(topic, level), FORWARDERS, stop.signal, (message) => this.forward(topic, message, onError)),
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
  private async pull(stream: string, durable: string, concurrency: number, signal: AbortSignal, handle: (message: JsMsg) => Promise<void>): Promise<void> {
    const consumer = await this.link.js.consumers.get(stream, durable);
    const messages = await consumer.consume({ max_messages: concurrency });
    // The server may have dropped the pull the client is waiting on: after a reconnect, start afresh.
    const stopRenewed = this.link.onRenewed(() => messages.stop(new Error(`NATS connection renewed; consuming ${durable} afresh`)));
    const stop = () => messages.stop();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    void (async () => {
      for await (const { type } of await messages.status()) {
        // The consumer or its stream is gone: declared again on the next renewal, consumed afresh after.
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

  /** Never rejects: a message that cannot be settled (the connection dropped) comes again after ack_wait. */
  private async handle(topic: Topic, message: JsMsg, handler: Handler, onError: ConsumeOptions['onError']): Promise<void> {
    const { id, payload, deliveries = 0 } = codec.decode(message.data);
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
        await this.link.js.publish(this.deadSubject(topic), deadCodec.encode({ id, payload, reason: outcome.reason }), { msgID: `dead:${topic}:${id}` });
        message.term();
    }
  }

  /** Acks the message once a copy waits in the delay levels, due after `delayMs`. */
  private async postpone(topic: Topic, message: JsMsg, envelope: Required<Envelope>, delayMs: number): Promise<void> {
    const { level, delayed } = firstHop(envelope, Date.now(), delayMs);
    await this.publishDelayed(topic, level, delayed);
    await message.ackAck();
  }

  private async publishDelayed(topic: Topic, level: DelayLevel, delayed: Delayed): Promise<void> {
    await this.link.js.publish(this.delaySubject(topic, level), delayedCodec.encode(delayed), {
      msgID: `delayed:${topic}:${delayed.id}:${delayed.deliveries}:${delayed.dueAt}:${delayed.hop}`,
    });
  }

  /** A delay level's message: waits out its hop, then goes on to the next hop or back to its topic. */
  private async forward(topic: Topic, message: JsMsg, onError: ConsumeOptions['onError']): Promise<void> {
    const delayed = delayedCodec.decode(message.data);
    try {
      const now = Date.now();
      if (delayed.hopUntil > now) return message.nak(delayed.hopUntil - now);
      const next = afterHop(delayed, now);
      if (next.kind === 'hop') await this.publishDelayed(topic, next.level, next.next);
      else {
        const { id, payload, deliveries, dueAt } = delayed;
        await this.link.js.publish(this.subject(topic), codec.encode({ id, payload, deliveries }), { msgID: `${topic}:${id}:${deliveries}:${dueAt}` });
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

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}
