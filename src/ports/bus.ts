import { type Backoff, backoffDelay } from '../support/backoff.js';

/**
 * The bus between the log and the webhook dispatcher: durable, at-least-once, deduplicated by message
 * id on publish. One bus serves one environment; its topics never cross environments.
 */

export const topics = ['events', 'deliveries'] as const;
export type Topic = (typeof topics)[number];

export interface BusMessage {
  topic: Topic;
  /** Unique per topic: publishing an id again (within the dedupe window) delivers it once. */
  id: string;
  payload: unknown;
  /** 1 on the first delivery, then 2, 3, … */
  deliveryCount: number;
}

/**
 * What the handler made of a message. A retry is offered again after its delay, a delivery like any
 * other; a deferred message was not handled at all (its handler had no room for it), so the delivery
 * does not count.
 */
export type Outcome =
  | { kind: 'ack' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'defer'; delayMs: number }
  | { kind: 'dead'; reason: string };

export type Handler = (message: BusMessage) => Promise<Outcome>;

export interface ConsumeOptions {
  signal: AbortSignal;
  /** Messages handled at once. */
  concurrency?: number;
  /** A handler that threw, or a message that could not be settled; the message comes again later. */
  onError?: (error: unknown, message: BusMessage) => void;
}

/** Deliveries of one message before it goes dead whatever the handler says; adapters take it as an option. */
export const DEFAULT_MAX_DELIVER = 100;

/**
 * The delay before a message whose handler threw comes again: 1 s, doubling, at most a minute, each shortened by
 * up to a fifth at random: a backend that fails every handler at once would otherwise see them all come back at once.
 */
const AFTER_FAILURE: Backoff = { firstDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.2 };

/**
 * Runs a handler as every adapter must: a throw is a retry after AFTER_FAILURE's delay, and a retry asked
 * for on the last allowed delivery goes dead, so no message is ever dropped silently.
 */
export async function runHandler(
  handler: Handler,
  message: BusMessage,
  maxDeliver: number,
  onError?: ConsumeOptions['onError'],
): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = await handler(message);
  } catch (error) {
    onError?.(error, message);
    outcome = { kind: 'retry', delayMs: backoffDelay(AFTER_FAILURE, message.deliveryCount) };
  }
  if (outcome.kind === 'retry' && message.deliveryCount >= maxDeliver)
    return { kind: 'dead', reason: `no success after ${maxDeliver} deliveries` };
  return outcome;
}

export interface Bus {
  publish(topic: Topic, id: string, payload: unknown): Promise<void>;
  /**
   * Hands each message of the topic to the handler until the signal aborts, then waits for the handlers
   * under way. A message whose handler never settles (the process died) is delivered again later; one
   * whose handler is still running is not. Messages waiting for a retry never hold back the others.
   * Rejects if the adapter stops receiving messages (a networked bus after an outage): consume again.
   */
  consume(topic: Topic, handler: Handler, options: ConsumeOptions): Promise<void>;
  /** Messages that went dead, oldest first, for operators and tests. */
  deadLetters(topic: Topic): Promise<{ id: string; payload: unknown; reason: string }[]>;
  /** Resolves when the bus answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
