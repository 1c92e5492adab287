import type { AnyBulkWriteOperation } from 'mongodb';
import type { Document, JsonDocument } from '../../ports/collections.js';
import type { CounterWrite, DocumentWrite, Fence } from '../../ports/read-models.js';
import { positionKey } from '../position-key.js';

/** A read-model document as MongoDB stores it: `_id` is the document's id, `_position` the last event applied. */
export type StoredDocument = Record<string, unknown> & { _id: string; _position: string };

/** A removed document: its id and position stay, so an older write cannot bring it back. Reads pass over it. */
export type Tombstone = { _id: string; _position: string; _removed: true };

/** Matches the documents that are not tombstones. */
export const NOT_REMOVED = { _removed: { $exists: false } } as const;

export function toStored(doc: Document | JsonDocument, position: bigint): StoredDocument {
  const { id, ...rest } = doc;
  return { _id: id, ...rest, _position: positionKey(position) };
}

export function tombstone(id: string, position: bigint): Tombstone {
  return { _id: id, _position: positionKey(position), _removed: true };
}

export function isTombstone(stored: Record<string, unknown>): boolean {
  return stored._removed === true;
}

/** The position of the last event applied to a stored document; undefined for one written before positions were kept. */
export function positionOf(stored: Record<string, unknown>): bigint | undefined {
  return typeof stored._position === 'string' ? BigInt(stored._position) : undefined;
}

/** The document its projection wrote, as `D` (its collection's type): the one cast from what MongoDB holds. */
export function fromStored<D extends Document = JsonDocument>(stored: Record<string, unknown>): D {
  const { _id, _position: _ignored, ...rest } = stored;
  return { id: _id as string, ...rest } as D;
}

/**
 * An update pipeline that replaces the document (or its tombstone) only if this event is newer than the one
 * it last saw. Used with a filter on `_id` alone and upsert, so a replayed event neither throws E11000 (a
 * filter on `_position` would, by upserting a second `_id`) nor rolls the document back. The new document, or
 * the tombstone of a removal, goes in as a literal, so caller-chosen keys (metadata) are never read as expressions.
 */
export function guardedReplace(stored: StoredDocument | Tombstone) {
  return [
    {
      $replaceWith: {
        $cond: [{ $lt: [{ $ifNull: ['$_position', ''] }, stored._position] }, { $literal: stored }, '$$ROOT'],
      },
    },
  ];
}

/**
 * An update pipeline that blanks a document: only `_id`, the `keep` fields and `set` (as literals) stay,
 * and its position moves to the erasure's (unless it holds a newer one), so a replay of an older event cannot
 * write the document back.
 */
export function blanking(keep: readonly string[], set: Record<string, unknown>, position: bigint) {
  return [
    { $project: Object.fromEntries(['_id', '_position', ...keep.filter((field) => field !== 'id')].map((field) => [field, 1])) },
    {
      $set: {
        ...Object.fromEntries(Object.entries(set).map(([field, value]) => [field, { $literal: value }])),
        _position: { $max: [{ $ifNull: ['$_position', ''] }, positionKey(position)] },
      },
    },
  ];
}

/** The collection of every read model's counter rows: `{ _id, collection, counter, period, key, n, _position }`. */
export const COUNTERS = '_counters';

/**
 * A counter row's upsert: one added for each of the write's events newer than the last one the row counted
 * (`_position`), so a page counted again counts no event twice. An update pipeline, where `$inc` cannot look at
 * `_position`; its values go in as literals.
 */
export function counting({ collection, counter, period, key, positions }: CounterWrite) {
  const held = { $ifNull: ['$_position', ''] };
  const fresh = { $filter: { input: { $literal: positions.map(positionKey) }, cond: { $gt: ['$$this', held] } } };
  return {
    filter: { _id: `${collection} ${counter} ${period} ${key}` },
    update: [
      {
        $set: {
          collection: { $literal: collection },
          counter: { $literal: counter },
          period: { $literal: period },
          key: { $literal: key },
          n: { $add: [{ $ifNull: ['$n', 0] }, { $size: fresh }] },
          _position: { $max: [held, positionKey(positions.at(-1)!)] },
        },
      },
    ],
  };
}

/** Writes of a commit to one collection, in order: one ordered bulkWrite. */
export interface Run {
  collection: string;
  operations: AnyBulkWriteOperation<Record<string, unknown>>[];
}

/** The steps of a commit, in the order they are written (in one transaction where the deployment has them). */
export interface CommitPlan {
  /** Under a fence, first: the lease write that must match (fenceHold), or the commit is fenced off. */
  fence: ReturnType<typeof fenceHold> | undefined;
  /** The documents, one run per stretch of writes to the same collection (one, for a projection). */
  runs: Run[];
  /** Last: the projection's checkpoint, moved forwards only. */
  checkpoint: { filter: { _id: string }; update: ReturnType<typeof forwardCheckpoint> };
}

/** Every fenced commit holds its fence, a checkpoint alone included: a deposed leader moves nothing. */
export function commitPlan(projection: string, position: bigint, writes: readonly DocumentWrite[], fence: Fence | undefined): CommitPlan {
  const runs: Run[] = [];
  for (const write of writes) {
    const last = runs.at(-1);
    const operation = operationFor(write, position);
    const collection = 'counter' in write ? COUNTERS : write.collection;
    if (last?.collection === collection) last.operations.push(operation);
    else runs.push({ collection, operations: [operation] });
  }
  return { fence: fence && fenceHold(fence), runs, checkpoint: { filter: { _id: projection }, update: forwardCheckpoint(position) } };
}

function operationFor(write: DocumentWrite, position: bigint): AnyBulkWriteOperation<Record<string, unknown>> {
  if ('where' in write)
    return { updateMany: { filter: { ...write.where, ...NOT_REMOVED }, update: blanking(write.keep, write.set, position) } };
  if ('counter' in write) return { updateOne: { ...counting(write), upsert: true } as never };
  const at = write.position ?? position;
  const stored = write.doc === null ? tombstone(write.id, at) : toStored(write.doc, at);
  return { updateOne: { filter: { _id: write.id } as never, update: guardedReplace(stored), upsert: true } };
}

/**
 * The write that opens a fenced commit's transaction: it matches only while the lease has the fence's token,
 * and it changes the lease (an $inc is never a no-op, which would write nothing), so a takeover racing the
 * transaction conflicts with it: the takeover waits for the commit, or the commit is run again and finds the
 * new token.
 */
export function fenceHold(fence: Fence) {
  return { filter: { _id: fence.lease, token: fence.token }, update: { $inc: { commits: 1 } } } as const;
}

/** Moves a checkpoint to `position` unless it is further already. */
export function forwardCheckpoint(position: bigint) {
  return [{ $set: { position: { $max: [{ $ifNull: ['$position', ''] }, positionKey(position)] } } }];
}

/**
 * Takes the lease for `holder`, timed by the server's clock ($$NOW, so replicas' clocks need not agree):
 * renewed (same token) while `holder` has it, taken with the next token when it is free or expired, left
 * as it is while another holder has it. Every field is computed from the lease as it was.
 */
export function takeLease(holder: string, ttlMs: number) {
  const held = { $gt: [{ $ifNull: ['$expires_at', new Date(0)] }, '$$NOW'] };
  const mine = { $eq: ['$holder', { $literal: holder }] };
  const free = { $or: [mine, { $not: [held] }] };
  return [
    {
      $set: {
        token: { $cond: [{ $and: [mine, held] }, '$token', { $cond: [free, { $add: [{ $ifNull: ['$token', 0] }, 1] }, '$token'] }] },
        holder: { $cond: [free, { $literal: holder }, '$holder'] },
        expires_at: { $cond: [free, { $add: ['$$NOW', ttlMs] }, '$expires_at'] },
      },
    },
  ];
}
