import { z } from 'zod';
import type { Collection, DocumentOf } from '../ports/collections.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { fieldError } from './field-errors.js';
import { ProblemError } from './problem.js';

export const listQuery = {
  limit: z
    .string()
    .regex(/^(100|[1-9][0-9]?)$/, 'must be a whole number from 1 to 100, in decimal digits.')
    .transform(Number)
    .default(10)
    // On the wire a query value is text; what it means is a whole number, which is what a client should send.
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      pattern: undefined,
      description: 'Page size, 1..100 (default 10), in decimal digits.',
    }),
  starting_after: z.string().min(1).optional().describe('An id from a previous page: the page after it (older items).'),
  ending_before: z.string().min(1).optional().describe('An id from a previous page: the page before it (newer items).'),
};

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });
}

export interface ListParams {
  limit: number;
  starting_after?: string | undefined;
  ending_before?: string | undefined;
}

/** One page of a list held in memory, in its own order (oldest first for an audit). */
export function pageOf<T extends { id: string }>(items: readonly T[], params: ListParams): { data: T[]; has_more: boolean } {
  assertOneCursor(params);
  const cursor = params.starting_after ?? params.ending_before;
  const at = cursor === undefined ? -1 : items.findIndex((item) => item.id === cursor);
  if (cursor !== undefined && at === -1) throw invalidCursor(cursor);
  if (params.ending_before !== undefined) {
    const start = Math.max(0, at - params.limit);
    return { data: items.slice(start, at), has_more: start > 0 };
  }
  const start = at + 1;
  return { data: items.slice(start, start + params.limit), has_more: start + params.limit < items.length };
}

export const invalidCursor = (cursor: string): ProblemError =>
  new ProblemError('invalid_cursor', `The cursor ${cursor} names no item of this list.`);

export function assertOneCursor(params: ListParams): void {
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    throw new ProblemError('validation_failed', 'Give starting_after or ending_before, not both.', {
      errors: [fieldError('query', ['ending_before'], 'cannot be combined with `starting_after`: give one of them.')],
    });
  }
}

/** One page of a collection, newest first. A cursor that names no item of this (filtered) list is a 400. */
export async function listPage<C extends Collection, T>(
  store: ReadModelStore,
  collection: C,
  params: ListParams,
  where: Record<string, string>,
  toResource: (doc: DocumentOf<C>) => T,
) {
  assertOneCursor(params);
  const cursor = params.starting_after ?? params.ending_before;
  if (cursor !== undefined) {
    const item = await store.get(collection, cursor);
    const fields = new Map(Object.entries(item ?? {}));
    if (item === undefined || !Object.entries(where).every(([field, value]) => fields.get(field) === value)) {
      throw invalidCursor(cursor);
    }
  }
  const page = await store.list(collection, {
    where,
    limit: params.limit,
    ...(params.starting_after !== undefined && { startingAfter: params.starting_after }),
    ...(params.ending_before !== undefined && { endingBefore: params.ending_before }),
  });
  return { object: 'list' as const, data: page.data.map(toResource), has_more: page.hasMore };
}
