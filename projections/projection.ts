import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';

/**
 * A read model: one document per id in one collection, evolved event by event. Pure, so a replay
 * from any checkpoint produces the same documents.
 */
export interface Projection {
  name: string;
  collection: string;
  canHandle: readonly string[];
  documentId(event: RecordedEvent): string;
  /** The new document, or null to remove it. */
  evolve(current: Document | undefined, event: RecordedEvent): Document | null;
  /**
   * For collections whose documents carry a `subject_id`: on the subject's SubjectErased, each of them keeps
   * only these fields (and `erased: true`); every personal field goes.
   */
  erasure?: { keep: readonly string[] };
  /**
   * Other documents of the collection that the event adds to (a count per period, say), decided from the event
   * and its own document as it stood before it. They are folded and committed with the page, in log order; their
   * ids are never an event's own document id.
   */
  alsoChanges?(own: Document | undefined, event: RecordedEvent): DerivedChange[];
}

/** A document an event changes besides its own: `evolve` makes its new version from the current one (undefined before its first). */
export interface DerivedChange {
  id: string;
  evolve(current: Document | undefined): Document | null;
}

/** A side effect driven by the log (appending another event, say). Must tolerate seeing an event twice. */
export interface Reactor {
  name: string;
  canHandle: readonly string[];
  /** Whether an event of those types asks for a reaction, decided from the event alone; those that do not cost nothing, not even a checkpoint. */
  acts?(event: RecordedEvent): boolean;
  react(event: RecordedEvent): Promise<void>;
}
