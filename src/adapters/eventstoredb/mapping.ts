import { ANY, type AppendExpectedRevision, type CurrentRevision, type JSONType, NO_STREAM, type Position, jsonEvent } from '@eventstore/db-client';
import type { ExpectedRevision, NewEvent, RecordedEvent } from '../../ports/event-store.js';

/**
 * EventStoreDB orders $all by (commit, prepare), two unsigned 64-bit numbers. The port's position is one
 * bigint that keeps that order: commit in the high 64 bits, prepare in the low.
 */
export function encodePosition(position: Position): bigint {
  return (position.commit << 64n) | position.prepare;
}

const LOW_64 = (1n << 64n) - 1n;

export function decodePosition(position: bigint): Position {
  return { commit: position >> 64n, prepare: position & LOW_64 };
}

export function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return expected;
}

/** The stream's revision as the port counts it: -1n for a stream that does not exist. */
export function fromCurrentRevision(current: CurrentRevision): bigint {
  return typeof current === 'bigint' ? current : -1n;
}

/** The caller's event id goes to EventStoreDB as is, so a retried append of the same events is stored once. */
export function toEventData(event: NewEvent) {
  return jsonEvent({ id: event.id, type: event.type, data: event.data as JSONType, metadata: event.metadata as JSONType });
}

/** The fields of an EventStoreDB recorded event that the port needs. */
export interface StoredEvent {
  id: string;
  streamId: string;
  revision: bigint;
  type: string;
  created: Date;
  data: unknown;
  metadata: unknown;
  position?: Position;
}

/** Back to the port's shape, the environment's stream prefix removed. */
export function fromStoredEvent(stored: StoredEvent, streamPrefix: string): RecordedEvent {
  if (!stored.streamId.startsWith(streamPrefix)) throw new Error(`stream ${stored.streamId} is outside ${streamPrefix}`);
  if (stored.position === undefined) throw new Error(`event ${stored.id} came without its $all position`);
  return {
    id: stored.id,
    streamName: stored.streamId.slice(streamPrefix.length),
    revision: stored.revision,
    position: encodePosition(stored.position),
    type: stored.type,
    data: stored.data,
    metadata: (stored.metadata ?? {}) as RecordedEvent['metadata'],
    recordedAt: stored.created.toISOString(),
  };
}

/**
 * The server's word, in a filtered $all subscription, that it has searched the log up to `position` and sent
 * every event of ours before it. It travels in the subscription's own output, in order with the events.
 */
export class CheckpointMark {
  constructor(readonly position: Position) {}
}

/** What one item of a subscription means for a subscriber that has seen everything up to `last`. */
export type SubscriptionItem = { kind: 'event'; event: RecordedEvent } | { kind: 'checkpoint'; position: bigint } | { kind: 'seen' };

export function fromSubscriptionItem(item: { event?: StoredEvent } | CheckpointMark, streamPrefix: string, last: bigint | undefined): SubscriptionItem {
  if (item instanceof CheckpointMark) {
    const position = encodePosition(item.position);
    return last !== undefined && position <= last ? { kind: 'seen' } : { kind: 'checkpoint', position };
  }
  if (item.event === undefined) return { kind: 'seen' };
  const event = fromStoredEvent(item.event, streamPrefix);
  // A resubscription from `last` may hand back what was already yielded.
  return last !== undefined && event.position <= last ? { kind: 'seen' } : { kind: 'event', event };
}
