import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  JSONCodec,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  connect,
  nanos,
} from 'nats';
import type { Environment } from '../../domain/api-keys.js';
import { type Bus, type ConsumeOptions, DEFAULT_MAX_DELIVER, type Handler, type Topic, runHandler, topics } from '../../ports/bus.js';

export interface NatsBusOptions {
  url: string;
  environment: Environment;
  /** How long a delivered message may stay unacknowledged before NATS delivers it again. */
  ackWaitMs?: number;
  /** After this many deliveries a message goes dead (NATS's own max_deliver is one above, as a backstop). */
  maxDeliver?: number;
  /** Publishes of one message id within this window are stored once. */
  duplicateWindowMs?: number;
}

interface Envelope {
  id: string;
  payload: unknown;
}

const codec = JSONCodec<Envelope>();
const deadCodec = JSONCodec<Envelope & { reason: string }>();

/**
 * The bus on NATS JetStream. Per environment: a work-queue stream (`NATURE_TEST` with subjects
 * `nature.test.events` and `nature.test.deliveries`), one durable pull consumer per topic with explicit
 * ack, and a dead-letter stream (`NATURE_TEST_DEAD`). Publishes carry the message id as Nats-Msg-Id, so
 * the stream's duplicate window drops repeats. Retries are delayed naks: consumer backoff applies only
 * to ack timeouts, not to naks.
 */
export class NatsBus implements Bus {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly environment: Environment,
    private readonly maxDeliver: number,
  ) {}

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const nc = await connect({ servers: options.url, name: `nature-${options.environment}` });
    const jsm = await nc.jetstreamManager();
    const bus = new NatsBus(nc, nc.jetstream(), jsm, options.environment, options.maxDeliver ?? DEFAULT_MAX_DELIVER);
    await bus.declare(options);
    return bus;
  }

  private get stream(): string {
    return `NATURE_${this.environment.toUpperCase()}`;
  }

  private get deadStream(): string {
    return `${this.stream}_DEAD`;
  }

  private subject(topic: Topic): string {
    return `nature.${this.environment}.${topic}`;
  }

  private deadSubject(topic: Topic): string {
    return `nature.${this.environment}.dead.${topic}`;
  }

  /** Creates the streams and consumers, or brings an existing deployment's settings up to date. */
  private async declare(options: NatsBusOptions): Promise<void> {
    const upsertStream = async (config: Parameters<JetStreamManager['streams']['add']>[0] & { name: string }) => {
      try {
        await this.jsm.streams.info(config.name);
        await this.jsm.streams.update(config.name, config);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await this.jsm.streams.add(config);
      }
    };
    await upsertStream({
      name: this.stream,
      subjects: topics.map((topic) => this.subject(topic)),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(options.duplicateWindowMs ?? 2 * 60 * 1000),
    });
    await upsertStream({
      name: this.deadStream,
      subjects: topics.map((topic) => this.deadSubject(topic)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    });
    for (const topic of topics) {
      const config = {
        durable_name: topic,
        filter_subject: this.subject(topic),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(options.ackWaitMs ?? 60_000),
        max_deliver: (options.maxDeliver ?? DEFAULT_MAX_DELIVER) + 1,
      };
      try {
        await this.jsm.consumers.info(this.stream, topic);
        await this.jsm.consumers.update(this.stream, topic, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await this.jsm.consumers.add(this.stream, config);
      }
    }
  }

  async publish(topic: Topic, id: string, payload: unknown): Promise<void> {
    await this.js.publish(this.subject(topic), codec.encode({ id, payload }), { msgID: `${topic}:${id}` });
  }

  async consume(topic: Topic, handler: Handler, { signal, concurrency = 8, onError }: ConsumeOptions): Promise<void> {
    const consumer = await this.js.consumers.get(this.stream, topic);
    const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency });
    const stop = () => void messages.stop();
    signal.addEventListener('abort', stop, { once: true });
    const running = new Set<Promise<void>>();
    try {
      for await (const message of messages) {
        const work = this.handle(topic, message, handler, onError).finally(() => running.delete(work));
        running.add(work);
        // Pulled messages wait here until a handler slot is free.
        while (running.size >= concurrency) await Promise.race(running);
      }
    } finally {
      signal.removeEventListener('abort', stop);
      await Promise.allSettled(running);
    }
  }

  /** Never rejects: a message that cannot be settled (the connection dropped) comes again after ack_wait. */
  private async handle(topic: Topic, message: JsMsg, handler: Handler, onError: ConsumeOptions['onError']): Promise<void> {
    const { id, payload } = codec.decode(message.data);
    const busMessage = { topic, id, payload, deliveryCount: message.info.redeliveryCount };
    const outcome = await runHandler(handler, busMessage, this.maxDeliver, onError);
    try {
      if (outcome.kind === 'ack') {
        await message.ackAck();
      } else if (outcome.kind === 'retry') {
        message.nak(outcome.delayMs);
      } else {
        await this.js.publish(this.deadSubject(topic), deadCodec.encode({ id, payload, reason: outcome.reason }), { msgID: `dead:${topic}:${id}` });
        message.term();
      }
    } catch (error) {
      onError?.(error, busMessage);
    }
  }

  async deadLetters(topic: Topic) {
    const info = await this.jsm.streams.info(this.deadStream);
    const letters: { id: string; payload: unknown; reason: string }[] = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const stored = await this.jsm.streams.getMessage(this.deadStream, { seq }).catch(() => undefined);
      if (stored?.subject === this.deadSubject(topic)) letters.push(deadCodec.decode(stored.data));
    }
    return letters;
  }

  async ping(): Promise<void> {
    await this.nc.rtt();
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}
