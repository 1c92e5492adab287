import type { InitArgs, InitOf, PathsWith, paths, ResponseOf } from './api.js';

type Values<T> = T[keyof T];

/** The GET routes that answer a cursor list (`data`, `has_more`) and take `starting_after`. */
export type ListPath = Values<{
  [P in PathsWith<'get'>]: ResponseOf<'get', P> extends { data: readonly { id: string }[]; has_more: boolean }
    ? paths[P]['get'] extends { parameters: { query?: { starting_after?: unknown } } }
      ? P
      : never
    : never;
}>;

export type ListItem<P extends ListPath> = ResponseOf<'get', P>['data'][number];

export type Page = { data: readonly { id: string }[]; has_more: boolean };
type Query = Record<string, unknown>;

/**
 * A list call: awaited, its first page; iterated with `for await`, every item of every page, fetched as the
 * iteration goes. The first page is fetched once, when first needed, whichever way it is used.
 */
export interface ListResult<P extends Page> extends PromiseLike<P>, AsyncIterable<P['data'][number]> {}

/**
 * Every item from `first` on. It follows `starting_after` in the list's own order; given `ending_before`,
 * it walks back towards the start instead, nearest item first.
 */
async function* items<P extends Page>(fetchPage: (query: Query) => Promise<P>, query: Query, first = () => fetchPage(query)) {
  const backwards = query.ending_before !== undefined;
  const cursor = { ...query };
  for (let page = await first(); ; page = await fetchPage(cursor)) {
    yield* (backwards ? [...page.data].reverse() : page.data) as P['data'][number][];
    if (!page.has_more || page.data.length === 0) return;
    if (backwards) cursor.ending_before = page.data[0]!.id;
    else cursor.starting_after = page.data.at(-1)!.id;
  }
}

/** The list of `query` (its page size is `limit`), as a ListResult. */
export function listResult<P extends Page>(fetchPage: (query: Query) => Promise<P>, query: Query): ListResult<P> {
  let first: Promise<P> | undefined;
  const firstPage = () => {
    first ??= fetchPage(query);
    return first;
  };
  return {
    // biome-ignore lint/suspicious/noThenProperty: a ListResult is awaited for its first page by design.
    then: (onFulfilled, onRejected) => firstPage().then(onFulfilled, onRejected),
    [Symbol.asyncIterator]: () => items(fetchPage, query, firstPage),
  };
}

/** Every item of a list by path, as `nature.list('/v1/nature/subjects')` iterates it. */
export function paginate<P extends ListPath>(
  get: (path: string, init: object) => Promise<unknown>,
  path: P,
  ...[init]: InitArgs<InitOf<'get', P>>
): AsyncIterableIterator<ListItem<P>> {
  const given = (init ?? {}) as { params?: { query?: Query } };
  const fetchPage = (query: Query) => get(path, { ...given, params: { ...given.params, query } }) as Promise<ResponseOf<'get', P> & Page>;
  return items(fetchPage, { ...given.params?.query }) as AsyncIterableIterator<ListItem<P>>;
}
