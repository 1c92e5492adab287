import type { Document } from '../../ports/read-models.js';
import { positionKey } from '../position-key.js';

/** A read-model document as MongoDB stores it: `_id` is the document's id, `_position` the last event applied. */
export type StoredDocument = Record<string, unknown> & { _id: string; _position: string };

/** A removed document: its id and position stay, so an older write cannot bring it back. Reads pass over it. */
export type Tombstone = { _id: string; _position: string; _removed: true };

/** Matches the documents that are not tombstones. */
export const NOT_REMOVED = { _removed: { $exists: false } } as const;


export function toStored(doc: Document, position: bigint): StoredDocument {
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

export function fromStored(stored: Record<string, unknown>): Document {
  const { _id, _position: _ignored, ...rest } = stored;
  return { id: _id as string, ...rest };
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
    { $set: { ...Object.fromEntries(Object.entries(set).map(([field, value]) => [field, { $literal: value }])), _position: { $max: [{ $ifNull: ['$_position', ''] }, positionKey(position)] } } },
  ];
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
