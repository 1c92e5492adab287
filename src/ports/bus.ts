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

/** What the handler made of a message. */
export type Outcome = { kind: 'ack' } | { kind: 'retry'; delayMs: number } | { kind: 'dead'; reason: string };

export type Handler = (message: BusMessage) => Promise<Outcome>;

export interface ConsumeOptions {
  signal: AbortSignal;
  /** Messages handled at once. */
  concurrency?: number;
}

export interface Bus {
  publish(topic: Topic, id: string, payload: unknown): Promise<void>;
  /**
   * Hands each message of the topic to the handler until the signal aborts, then waits for the handlers
   * under way. A message whose handler never settles (the process died) is delivered again later.
   */
  consume(topic: Topic, handler: Handler, options: ConsumeOptions): Promise<void>;
  /** Messages that went dead, oldest first, for operators and tests. */
  deadLetters(topic: Topic): Promise<{ id: string; payload: unknown; reason: string }[]>;
  /** Resolves when the bus answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
