import {
  ANY,
  type AppendExpectedRevision,
  type CurrentRevision,
  type JSONType,
  jsonEvent,
  NO_STREAM,
  type Position,
} from '@eventstore/db-client';
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

/** Types the server writes into our streams, never ours: the `$streamDeleted` tombstone of a deleted stream. */
export function isServerEvent(stored: Pick<StoredEvent, 'type'>): boolean {
  return stored.type.startsWith('$');
}

/**
 * The server's word, in a filtered $all subscription, that it has searched the log up to `position` and sent
 * every event of ours before it. It travels in the subscription's own output, in order with the events.
 */
export class CheckpointMark {
  constructor(readonly position: Position) {}
}
