import { CancelledError, UnavailableError } from '@eventstore/db-client';
import type { RecordedEvent, SubscribeOptions } from '../../ports/event-store.js';
import { type Backoff, backoffDelay } from '../../support/backoff.js';
import { pause } from '../../support/pause.js';
import { CheckpointMark, encodePosition, fromStoredEvent, isServerEvent, type StoredEvent } from './mapping.js';

/** What a filtered $all subscription hands over: an event of ours, or the server's checkpoint in order with them. */
export type SubscriptionOutput = { event?: StoredEvent } | CheckpointMark;

/** What one output means for the subscriber. */
export type SubscriptionItem = { kind: 'event'; event: RecordedEvent } | { kind: 'checkpoint'; position: bigint } | { kind: 'seen' };

/**
 * How far a subscriber has got, as two positions kept apart because they promise different things. The last
 * event handed over: it and everything before it are done. The server's last checkpoint: every event of ours
 * *before* it was sent. A server without the fix for KDB-744 (EventStoreDB before 24.10.5, KurrentDB 25.0.0)
 * can send a checkpoint at the position of the next event, not sent yet: an event at a checkpoint is new.
 */
export class SubscriptionProgress {
  private lastEvent: bigint | undefined;
  private lastCheckpoint: bigint | undefined;

  /** `after` is the caller's: exclusive, as the port says, so it counts as an event handed over. */
  constructor(after: bigint | undefined) {
    this.lastEvent = after;
  }

  /** Where a resubscription starts (exclusive): past the last event and the last checkpoint. */
  get resumeAfter(): bigint | undefined {
    const { lastEvent, lastCheckpoint } = this;
    if (lastEvent === undefined) return lastCheckpoint;
    return lastCheckpoint !== undefined && lastCheckpoint > lastEvent ? lastCheckpoint : lastEvent;
  }

  /** What `output` means now; an event or a checkpoint past the progress moves it on. */
  accept(output: SubscriptionOutput, streamPrefix: string): SubscriptionItem {
    if (output instanceof CheckpointMark) {
      const position = encodePosition(output.position);
      const reached = this.resumeAfter;
      if (reached !== undefined && position <= reached) return { kind: 'seen' };
      this.lastCheckpoint = position;
      return { kind: 'checkpoint', position };
    }
    if (output.event === undefined || isServerEvent(output.event)) return { kind: 'seen' };
    const event = fromStoredEvent(output.event, streamPrefix);
    // A resubscription may hand back what was already handed over.
    if (this.lastEvent !== undefined && event.position <= this.lastEvent) return { kind: 'seen' };
    if (this.lastCheckpoint !== undefined && event.position < this.lastCheckpoint) return { kind: 'seen' };
    this.lastEvent = event.position;
    return { kind: 'event', event };
  }
}

/** The waits before opening a dropped subscription again: doubling from `firstDelayMs` up to `maxDelayMs`. */
export type ResubscribePolicy = Backoff;

export const RESUBSCRIBE: ResubscribePolicy = { firstDelayMs: 500, maxDelayMs: 10_000 };

/** The wait before opening again after `drops` drops in a row with nothing new between them. */
export function resubscribeDelay(policy: ResubscribePolicy, drops: number): number {
  return backoffDelay(policy, drops);
}

/** A subscription the server ended this way may be opened again: the node went away, or cancelled it. */
function isDrop(error: unknown): boolean {
  return error instanceof UnavailableError || error instanceof CancelledError;
}

/** One subscription as opened: its output, and how to end it (which ends the output). */
export interface OpenedSubscription {
  output: AsyncIterable<SubscriptionOutput>;
  close(): Promise<void>;
}

/**
 * Every event of `streamPrefix` after `after`, in order, through the subscriptions `open` makes (each after a
 * position, exclusive), until `signal` aborts. A subscription the server ends, without an error or with
 * UNAVAILABLE/CANCELLED, is opened again past the progress made, after a wait that doubles while nothing new
 * comes (a server that ends every subscription at once is not hammered) and that an abort cuts short.
 */
export async function* follow(
  open: (after: bigint | undefined) => OpenedSubscription,
  streamPrefix: string,
  { after, signal, onCheckpoint }: SubscribeOptions,
  policy: ResubscribePolicy = RESUBSCRIBE,
  wait: (ms: number, signal: AbortSignal) => Promise<void> = pause,
): AsyncGenerator<RecordedEvent> {
  const progress = new SubscriptionProgress(after);
  let drops = 0;
  while (!signal.aborted) {
    const subscription = open(progress.resumeAfter);
    const stop = () => void subscription.close();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const output of subscription.output) {
        const item = progress.accept(output, streamPrefix);
        if (item.kind === 'seen') continue;
        drops = 0;
        if (item.kind === 'checkpoint') onCheckpoint?.(item.position);
        else yield item.event;
      }
    } catch (error) {
      if (!signal.aborted && !isDrop(error)) throw error;
    } finally {
      signal.removeEventListener('abort', stop);
      await subscription.close();
    }
    if (signal.aborted) return;
    drops += 1;
    await wait(resubscribeDelay(policy, drops), signal);
  }
}
