import type { Document } from '../../ports/read-models.js';

/** A read-model document as MongoDB stores it: `_id` is the document's id, `_position` the last event applied. */
export type StoredDocument = Record<string, unknown> & { _id: string; _position: string };

/** Positions as fixed-width decimal strings: they compare in order as strings and fit any 128-bit bigint. */
export function positionKey(position: bigint): string {
  if (position < 0n) throw new Error('positions are never negative');
  return position.toString().padStart(40, '0');
}

export function toStored(doc: Document, position: bigint): StoredDocument {
  const { id, ...rest } = doc;
  return { _id: id, ...rest, _position: positionKey(position) };
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
 * An update pipeline that replaces the document only if this event is newer than the one it last saw.
 * Used with a filter on `_id` alone and upsert, so a replayed event neither throws E11000 (a filter on
 * `_position` would, by upserting a second `_id`) nor rolls the document back. The new document goes in
 * as a literal, so caller-chosen keys (metadata) are never read as expressions.
 */
export function guardedReplace(stored: StoredDocument) {
  return [
    {
      $replaceWith: {
        $cond: [{ $lt: [{ $ifNull: ['$_position', ''] }, stored._position] }, { $literal: stored }, '$$ROOT'],
      },
    },
  ];
}

/** Deletes the document unless a newer event has written it since. */
export function guardedDeleteFilter(id: string, position: bigint) {
  return { _id: id, $or: [{ _position: { $lt: positionKey(position) } }, { _position: { $exists: false } }] };
}

/**
 * An update pipeline that blanks a document: only `_id`, the `keep` fields and `set` (as literals) stay,
 * and its position moves to the erasure's, so a replay of an older event cannot write the document back.
 */
export function blanking(keep: readonly string[], set: Record<string, unknown>, position: bigint) {
  return [
    { $project: Object.fromEntries(['_id', ...keep.filter((field) => field !== 'id')].map((field) => [field, 1])) },
    { $set: { ...Object.fromEntries(Object.entries(set).map(([field, value]) => [field, { $literal: value }])), _position: positionKey(position) } },
  ];
}
