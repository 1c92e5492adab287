import type { AppendResult, ExpectedRevision, StreamAppend } from '../ports/event-store.js';

/**
 * The rules every event store applies to an append, whatever keeps the log, so the adapters' contract suite
 * holds alike: what a unit may hold, how its events are written, when a revision matches, and when the same
 * events come again (a retried request).
 */

/** One stream's append with its data and metadata already JSON. */
export interface EncodedAppend {
  streamName: string;
  events: { id: string; type: string; data: string; metadata: string }[];
  expected: ExpectedRevision;
}

/**
 * A unit's appends serialised, so data that is not JSON fails its own unit before any store work; throws on a unit
 * with no event, an append with none, or a stream appended to twice.
 */
export function encodeUnit(appends: readonly StreamAppend[]): EncodedAppend[] {
  if (appends.length === 0 || appends.some((append) => append.events.length === 0)) throw new Error('an append needs at least one event');
  if (new Set(appends.map((append) => append.streamName)).size < appends.length) throw new Error('a unit appends to each stream once');
  return appends.map(({ streamName, events, expected }) => ({
    streamName,
    expected,
    events: events.map((event) => ({
      id: event.id,
      type: event.type,
      data: JSON.stringify(event.data),
      metadata: JSON.stringify(event.metadata),
    })),
  }));
}

/** Whether a stream at revision `current` (-1n: none) takes an append expecting `expected`. */
export function revisionMatches(expected: ExpectedRevision, current: bigint): boolean {
  return expected === 'any' || (expected === 'no_stream' ? current === -1n : current === expected);
}

/** Where an event id was stored. */
export interface StoredId {
  stream_name: string;
  stream_revision: bigint;
  position: bigint;
}

/**
 * The same event ids appended again to the same stream (a retried request) are stored once: the result of the
 * first append, given where each id was found (undefined: not stored). Undefined when none was; throws when some
 * were stored elsewhere or not as one append.
 */
export function previousAppend(streamName: string, stored: readonly (StoredId | undefined)[]): AppendResult | undefined {
  if (stored.every((row) => row === undefined)) return undefined;
  const first = stored[0];
  const sameAppend =
    first !== undefined &&
    stored.every((row, i) => row?.stream_name === streamName && row.stream_revision === first.stream_revision + BigInt(i));
  if (!sameAppend) throw new Error(`event ids already used elsewhere in the log (stream ${streamName})`);
  const last = stored[stored.length - 1]!;
  return { nextRevision: last.stream_revision, position: last.position };
}
