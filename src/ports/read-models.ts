/**
 * Read models: JSON documents in named collections, written only by projections. A projection's
 * changes and its checkpoint are committed together, so a replay after a crash is idempotent.
 */

export type Document = Record<string, unknown> & { id: string };

/**
 * A document written whole (projections evolve the current one) or removed when `doc` is null; or, for an
 * erasure, every document matching `where` blanked: only its `keep` fields stay, and `set` is added.
 * `position` is the last event applied to the document (the commit's position when omitted): a store that
 * writes documents before its checkpoint keeps it, so a replay neither rolls a document back nor applies an
 * event to it twice.
 */
export type DocumentWrite =
  | { collection: string; id: string; doc: Document | null; position?: bigint }
  | { collection: string; where: Record<string, string>; keep: readonly string[]; set: Record<string, unknown> };

/** A stored document with, where the store keeps one, the position of the last event applied to it. */
export interface StoredVersion {
  doc: Document;
  /** Undefined for a store that commits documents and checkpoint atomically (nothing to skip on a replay). */
  position: bigint | undefined;
}

/** A field that lists filter on; adapters index it at start-up. */
export interface IndexedField {
  collection: string;
  field: string;
}

export interface ListQuery {
  /** Equality on top-level string fields. */
  where?: Record<string, string>;
  limit: number;
  /** Ids are time-sortable; lists are newest first. Give at most one of the cursors. */
  startingAfter?: string;
  endingBefore?: string;
}

export interface ListPage {
  data: Document[];
  hasMore: boolean;
}

export interface ReadModelStore {
  /** The position of the last event the projection committed; undefined before its first. */
  checkpoint(projection: string): Promise<bigint | undefined>;
  /**
   * Applies the writes in order and moves the projection's checkpoint to `position`: atomically, or (a store
   * without transactions) documents first, each guarded by its position, then the checkpoint.
   */
  commit(projection: string, position: bigint, writes: DocumentWrite[]): Promise<void>;
  get(collection: string, id: string): Promise<Document | undefined>;
  /** The documents of `ids` that exist, in one read: what a projection needs to fold a page of events. */
  getMany(collection: string, ids: readonly string[]): Promise<Map<string, StoredVersion>>;
  list(collection: string, query: ListQuery): Promise<ListPage>;
  /** Leaves no older copy of overwritten or removed documents in the store's files (after an erasure). */
  purge(): Promise<void>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
