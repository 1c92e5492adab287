import type { Document } from '../ports/collections.js';
import type { RecordedEvent } from '../ports/event-store.js';
import type { Projection } from '../ports/projection.js';
import type { CounterWrite, DocumentWrite, StoredVersion } from '../ports/read-models.js';

/**
 * What a projection has folded and not committed yet, from the log up to `position`: each document it changed at
 * its newest version, and each counter row with the events it counts.
 */
export class Fold {
  readonly docs = new Map<string, { doc: Document | null; position: bigint }>();
  readonly counted = new Map<string, CounterWrite>();
  /** Events of the projection's types folded (those its documents already held included): they call for a commit. */
  handled = 0;
  constructor(public position: bigint) {}

  /**
   * The commit's writes: counters first (a store without transactions writes in order, and a commit cut short after
   * them is replayed from the documents, whose events the counter rows then say they have counted already).
   */
  writes(collection: string): DocumentWrite[] {
    const writes: DocumentWrite[] = [...this.counted.values()];
    for (const [id, { doc, position }] of this.docs) writes.push({ collection, id, doc, position });
    return writes;
  }

  clear(): void {
    this.docs.clear();
    this.counted.clear();
    this.handled = 0;
  }
}

/** The ids of the documents `events` evolve that `fold` does not hold yet: those to read from the store. */
export function idsToRead(projection: Projection, events: readonly RecordedEvent[], fold: Fold): string[] {
  return [...new Set(events.map((event) => projection.documentId(event)).filter((id) => !fold.docs.has(id)))];
}

/**
 * Each event (of the projection's types, in log order) evolves its document, as folded or as `stored`, and adds to
 * its counter rows. Pure: what a lane commits, and what a log that projects in its appends' transaction writes.
 */
export function absorb(
  projection: Projection,
  events: readonly RecordedEvent[],
  stored: ReadonlyMap<string, StoredVersion>,
  fold: Fold,
): void {
  const { collection } = projection;
  fold.handled += events.length;
  for (const event of events) {
    const id = projection.documentId(event);
    const current = fold.docs.get(id);
    const version = stored.get(id);
    // The document (or its tombstone) may hold this event already: a replay after a crash, or another replica's write.
    if (current === undefined && version?.position !== undefined && event.position <= version.position) continue;
    const before = current === undefined ? version?.doc : (current.doc ?? undefined);
    for (const { counter, period, key } of projection.counts?.(before, event) ?? []) {
      const row = `${counter}\u0000${period}\u0000${key}`;
      const write = fold.counted.get(row);
      if (write === undefined) fold.counted.set(row, { collection, counter, period, key, positions: [event.position] });
      else write.positions.push(event.position);
    }
    fold.docs.set(id, { doc: projection.evolve(before, event), position: event.position });
  }
}
