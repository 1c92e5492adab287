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

type Page = { data: readonly { id: string }[]; has_more: boolean };
type Init = { params?: { query?: Record<string, unknown> } } & Record<string, unknown>;

/**
 * Every item of a list, fetching page after page as the iteration goes (the page size is `limit`). It follows
 * `starting_after` in the list's own order; given `ending_before`, it walks back towards the start instead,
 * nearest item first.
 */
export function paginate<P extends ListPath>(
  get: (path: string, init: Init) => Promise<unknown>,
  path: P,
  ...[init]: InitArgs<InitOf<'get', P>>
): AsyncIterableIterator<ListItem<P>> {
  const given = (init ?? {}) as Init;
  const query: Record<string, unknown> = { ...given.params?.query };
  const backwards = query.ending_before !== undefined;
  async function* pages(): AsyncGenerator<ListItem<P>> {
    for (;;) {
      const page = (await get(path, { ...given, params: { ...given.params, query } })) as Page;
      yield* (backwards ? [...page.data].reverse() : page.data) as ListItem<P>[];
      if (!page.has_more || page.data.length === 0) return;
      if (backwards) query.ending_before = page.data[0]!.id;
      else query.starting_after = page.data.at(-1)!.id;
    }
  }
  return pages();
}
