/**
 * Read models: JSON documents in named collections, written only by projections. A projection's
 * changes and its checkpoint are committed together, so a replay after a crash is idempotent.
 *
 * Several replicas share one store: one of them leads (holds the lease) and writes, fenced by its token;
 * the others read. Positions never go backwards, so a writer that lags or was deposed cannot undo a newer
 * write: a checkpoint only moves forwards, a document is replaced only by a newer event, and a removed
 * document leaves a tombstone with its position.
 */

import type { Document, DocumentOf, JsonDocument } from './collections.js';

/**
 * A document written whole (projections evolve the current one) or removed when `doc` is null; or, for an
 * erasure, every document matching `where` blanked: only its `keep` fields stay, and `set` is added.
 * `position` is the last event applied to the document (the commit's position when omitted): the store keeps
 * it, with a removed document's too, and ignores a write of a position no newer than the one it holds, so a
 * replay or a lagging writer neither rolls a document back, nor brings a removed one back, nor applies an
 * event to it twice. A store writes any JSON object it is given; projections give their collection's type.
 */
export type DocumentWrite =
  | { collection: string; id: string; doc: Document | JsonDocument | null; position?: bigint }
  | { collection: string; where: Record<string, string>; keep: readonly string[]; set: Record<string, unknown> }
  | CounterWrite;

/**
 * One added to the row (`period`, `key`) of a collection's `counter` for each event of `positions` (in log order)
 * that the row has not counted yet; a row starts at 0 and keeps the position of the last event it counted. As
 * with documents, so, a page counted again (a replay, a commit cut short on a store without transactions, a
 * lagging writer) counts no event twice. One write per row per commit.
 */
export interface CounterWrite {
  collection: string;
  counter: string;
  period: string;
  key: string;
  positions: bigint[];
}

/** A counter row as read. */
export interface CountRow {
  period: string;
  key: string;
  n: number;
}

/** A stored document, or the tombstone of a removed one, with the position of the last event applied to it. */
export interface StoredVersion<D extends Document = Document> {
  /** Undefined for a removed document (a tombstone). */
  doc: D | undefined;
  /** Undefined for a document written before positions were kept. */
  position: bigint | undefined;
}

/** A field that lists filter on; adapters index it at start-up. */
export interface IndexedField {
  collection: string;
  field: string;
}

/** Read models a data step removes, to be rebuilt from the log: the collections' documents and counters, and the checkpoints. */
export interface Rebuild {
  collections: readonly string[];
  checkpoints: readonly string[];
}

/**
 * What the read-model store's data steps rebuild (their numbers are the store's, on every backend): `all`, every
 * projection (read models from before their personal fields were sealed; the reactors' checkpoints stay, so nothing
 * is scored or published again), and `usage` (kept in bucket documents before counters).
 */
export interface ReadModelRebuilds {
  all: Rebuild;
  usage: Rebuild;
}

/** How an environment's read models are laid out: the list indexes, and what the data steps rebuild. */
export interface ReadModelLayout {
  indexedFields: IndexedField[];
  rebuilds: ReadModelRebuilds;
}

export interface ListQuery {
  /** Equality on top-level string fields. */
  where?: Record<string, string>;
  limit: number;
  /** Ids are time-sortable; lists are newest first. Give at most one of the cursors. */
  startingAfter?: string;
  endingBefore?: string;
}

export interface ListPage<D extends Document = Document> {
  data: D[];
  hasMore: boolean;
}

/** The lease a commit is made under: refused once the lease has passed to a newer token. */
export interface Fence {
  lease: string;
  token: number;
}

/** A commit made under a lease that another holder has taken since: nothing of it was written. */
export class FencedOffError extends Error {
  override readonly name = 'FencedOffError';
  constructor(fence: Fence) {
    super(`the lease ${fence.lease} has passed on from token ${fence.token}`);
  }
}

export interface ReadModelStore {
  /** The position of the last event the projection committed; undefined before its first. */
  checkpoint(projection: string): Promise<bigint | undefined>;
  /**
   * Applies the writes in order and moves the projection's checkpoint to `position` unless it is already
   * further, in one transaction. Under a `fence`, the lease is checked in the same atomic operation as the writes
   * (a checkpoint-only commit included): once the lease has a newer token the commit throws FencedOffError
   * and writes nothing.
   */
  commit(projection: string, position: bigint, writes: DocumentWrite[], fence?: Fence): Promise<void>;
  /**
   * Resolves while `fence` still holds its lease, as the store's majority sees it; throws FencedOffError once
   * a newer holder has it. For side effects outside the store (a webhook POST, a publish) that a deposed
   * leader must not start.
   */
  checkFence(fence: Fence): Promise<void>;
  /** Typed by the collection's name (collections.ts): `get('webhook_endpoints', id)` is a WebhookEndpoint. */
  get<C extends string>(collection: C, id: string): Promise<DocumentOf<C> | undefined>;
  /** The documents and tombstones of `ids` that exist, in one read: what a projection needs to fold a page of events. */
  getMany<C extends string>(collection: C, ids: readonly string[]): Promise<Map<string, StoredVersion<DocumentOf<C>>>>;
  list<C extends string>(collection: C, query: ListQuery): Promise<ListPage<DocumentOf<C>>>;
  /** The rows of a collection's `counter` whose period is in [from, to) (periods compare as strings), in no order. */
  counts(collection: string, counter: string, from: string, to: string): Promise<CountRow[]>;
  /** Leaves no older copy of overwritten or removed documents in the store's files (after an erasure). */
  purge(): Promise<void>;
  /**
   * Removes every document, tombstone and counter row of `collections` and the `checkpoints` named, then purges: their
   * projections start again from the log. For read models written in a format the service no longer reads.
   */
  reset(collections: readonly string[], checkpoints: readonly string[]): Promise<void>;
  /**
   * Takes the lease `name` for `ttlMs` if it is free or expired (with a token one above the last), or
   * renews it if `holder` has it (same token); undefined while another holder has it.
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<number | undefined>;
  /** Lets the lease go at once if `holder` has it, so another replica need not wait for it to expire. */
  releaseLease(name: string, holder: string): Promise<void>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
