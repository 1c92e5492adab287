import type { EventMetadata, RecordedEvent } from '../ports/event-store.js';
import { IDEMPOTENCY_TTL_MS } from '../ports/idempotency.js';

/** The events of one stream a request with an Idempotency-Key appended, and when. */
export interface Produced {
  /** Indexes of the first and last of them in the stream read. */
  first: number;
  last: number;
  /** When the first was recorded: the answer is drawn as it stood then. */
  at: Date;
}

/**
 * The events of `events` appended by an earlier run of this request, found by the tag its Idempotency-Key gave
 * their metadata; undefined for a request without a key, or whose key's events are past its time to live.
 * A run cut off by a crash after its append (its answer never stored with the key) is retried, and the retry
 * answers what the first run decided instead of deciding again (and answering 409 for its own write).
 */
export function producedBy(events: readonly RecordedEvent[], metadata: EventMetadata, now: Date): Produced | undefined {
  const tag = metadata.idempotency;
  if (tag === undefined) return undefined;
  let first = -1;
  let last = -1;
  events.forEach((event, index) => {
    if (event.metadata.idempotency !== tag || now.getTime() - Date.parse(event.recordedAt) >= IDEMPOTENCY_TTL_MS) return;
    if (first === -1) first = index;
    last = index;
  });
  return first === -1 ? undefined : { first, last, at: new Date(events[first]!.recordedAt) };
}
