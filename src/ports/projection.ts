import type { Collection, Collections, Document } from './collections.js';
import type { DomainEvent, Recorded, RecordedEvent } from './event-store.js';

/**
 * A read model: one document per id in one collection, evolved event by event. Pure, so a replay
 * from any checkpoint produces the same documents.
 *
 * Typed over the events it folds (`E`) and its documents (`D`). The projector holds every projection as a
 * plain `Projection` and hands each one only events of its `canHandle`: that list is what makes its `E` true,
 * and the methods (not function properties) are what let a `Projection<E, D>` stand as a `Projection`.
 */
export interface Projection<E extends DomainEvent = DomainEvent, D extends Document = Document> {
  name: string;
  collection: string;
  canHandle: readonly E['type'][];
  /** Whether an event of those types is the projection's business, decided from the event alone (default: every one). */
  acts?(event: Recorded<E>): boolean;
  documentId(event: Recorded<E>): string;
  /** The new document, or null to remove it. */
  evolve(current: D | undefined, event: Recorded<E>): D | null;
  /**
   * The write to every document matching `where` that an event of the log calls for (any event, not only those of
   * `canHandle`), such as an erasure blanking all of a subject's documents: only the `keep` fields stay and `set` is
   * added. The projector commits what it folded before the event, then the sweep alone at the event's position, and
   * purges what the sweep overwrote from the store's files.
   */
  sweep?(event: RecordedEvent): Sweep | undefined;
  /**
   * Counter rows of the collection the event adds one to (completions per period, say), decided from the event and
   * its own document as it stood before it. Committed with the page: an event its own document already holds (a
   * replay) counts nothing.
   */
  counts?(own: D | undefined, event: Recorded<E>): Count[];
}

/** One more in the row (`period`, `key`) of the projection's collection's `counter`. */
export interface Count {
  counter: string;
  period: string;
  key: string;
}

/** A write to every document of the collection matching `where`: each keeps only its `keep` fields, and `set` is added. */
export interface Sweep {
  where: Record<string, string>;
  keep: readonly string[];
  set: Record<string, unknown>;
}

/** The projection of a declared collection: its documents are that collection's. */
export type CollectionProjection<E extends DomainEvent, C extends Collection> = Projection<E, Collections[C]> & { collection: C };

/** A side effect driven by the log (appending another event, say). Must tolerate seeing an event twice. */
export interface Reactor<E extends DomainEvent = DomainEvent> {
  name: string;
  canHandle: readonly E['type'][];
  /** Whether an event of those types asks for a reaction, decided from the event alone; those that do not cost nothing, not even a checkpoint. */
  acts?(event: Recorded<E>): boolean;
  react(event: Recorded<E>): Promise<void>;
  /** When given, reacts to all of a page's events at once (in log order) instead of one `react` each: one round trip for many. */
  reactAll?(events: Recorded<E>[]): Promise<void>;
}
