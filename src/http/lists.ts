import { z } from 'zod';
import type { Document, ReadModelStore } from '../ports/read-models.js';
import { ProblemError } from './problem.js';

export const listQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(10).describe('Page size, 1..100.'),
  starting_after: z.string().min(1).optional().describe('An id from a previous page: the page after it (older items).'),
  ending_before: z.string().min(1).optional().describe('An id from a previous page: the page before it (newer items).'),
};

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });
}

interface ListParams {
  limit: number;
  starting_after?: string | undefined;
  ending_before?: string | undefined;
}

/** One page of a collection, newest first. A cursor that names no item of this (filtered) list is a 400. */
export async function listPage<T>(
  store: ReadModelStore,
  collection: string,
  params: ListParams,
  where: Record<string, string>,
  toResource: (doc: Document) => T,
) {
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    throw new ProblemError('validation_failed', 'Give starting_after or ending_before, not both.', {
      errors: [{ path: '/ending_before', in: 'query', message: 'Cannot be combined with starting_after.' }],
    });
  }
  const cursor = params.starting_after ?? params.ending_before;
  if (cursor !== undefined) {
    const item = await store.get(collection, cursor);
    if (item === undefined || !Object.entries(where).every(([field, value]) => item[field] === value)) {
      throw new ProblemError('invalid_cursor', `The cursor ${cursor} names no item of this list.`);
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
