import type { RecordedEvent } from '../src/ports/event-store.js';
import type { DocumentChange } from '../src/ports/read-models.js';

/**
 * A projection: which events it reads and the read-model changes each one makes. Pure, so a replay
 * from any checkpoint produces the same documents.
 */
export interface Projection {
  name: string;
  canHandle: readonly string[];
  handle(event: RecordedEvent): DocumentChange[];
}
