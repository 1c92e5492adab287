import type { SealedPart } from '../ports/collections.js';
import type { RecordedEvent } from '../ports/event-store.js';
import { isEnvelope, open } from './pii-envelope.js';

/** The event's sealed `pii` as a read model keeps it. Every personal event is sealed on its way into the log. */
export function sealedPart(event: RecordedEvent): SealedPart {
  const pii = (event.data as { pii?: unknown }).pii;
  if (!isEnvelope(pii)) throw new Error(`${event.type} ${event.id} at ${event.position} carries personal data that is not sealed`);
  return { event: event.id, iv: pii.iv, ct: pii.ct };
}

/** Throws if the part was altered or belongs to another subject. */
export function openPart<T>(key: Buffer, subjectId: string, part: SealedPart): T {
  return open(key, { alg: 'A256GCM', iv: part.iv, ct: part.ct }, subjectId, part.event) as T;
}
