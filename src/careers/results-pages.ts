import type { Career, ResultsPage, ResultsPageRequest, SearchResults } from './catalogue.js';

/*
 * Search results as rank keys, read a page at a time. A key is a number whose ascending order is the results' order
 * and which names a career's place in the index (keys are distinct). A query can match thousands of titles and a
 * caller mostly reads the first ten: sorting them all was most of a broad query's time. So the first page moves its
 * keys to the front (Hoare's selection, linear on average) and sorts only those; the first page asked again is read
 * from there, and only a page further on (a cursor) sorts them all, once. A page reorders the keys in place, which
 * changes nothing the results answer: their order is the keys' own.
 */

/** How keys name careers: `placeOfKey` answers the place a key names, `career` the career at a place. */
export interface KeyedCareers {
  placeOfKey(key: number): number;
  career(place: number): Career;
  /** A career's place in the index, undefined for an id it does not hold. */
  placeOfId(id: string): number | undefined;
}

/**
 * Results whose keys are in any order, or `ascending` already: those are never reordered, so the index may share one
 * array of them between results.
 */
export function resultsByKey(keys: Float64Array, ascending: boolean, careers: KeyedCareers): SearchResults {
  // keys[0 .. inOrder) are the smallest keys, in order.
  let inOrder = ascending ? keys.length : 0;
  return {
    page({ limit, after, before }: ResultsPageRequest): ResultsPage | undefined {
      const cursor = after ?? before;
      const bound = cursor === undefined ? undefined : keyOf(keys, careers, cursor);
      if (cursor !== undefined && bound === undefined) return undefined;
      if (cursor === undefined && inOrder < Math.min(limit, keys.length)) inOrder = sortSmallest(keys, limit);
      else if (cursor !== undefined && inOrder < keys.length) inOrder = keys.sort().length;
      const page = slicePage(keys, bound, limit, before !== undefined);
      const found: Career[] = [];
      for (let i = 0; i < page.keys.length; i++) found.push(careers.career(careers.placeOfKey(page.keys[i]!)));
      return { careers: found, hasMore: page.hasMore };
    },
  };
}

/** The key of the career `id` in these results, undefined when it is not among them. */
function keyOf(keys: Float64Array, careers: KeyedCareers, id: string): number | undefined {
  const place = careers.placeOfId(id);
  if (place === undefined) return undefined;
  for (const key of keys) if (careers.placeOfKey(key) === place) return key;
  return undefined;
}

/** Puts the `count` smallest keys (or all, if fewer) first and in order; answers how many that is. */
function sortSmallest(keys: Float64Array, count: number): number {
  if (keys.length <= count) return keys.sort().length;
  selectSmallest(keys, count);
  keys.subarray(0, count).sort();
  return count;
}

/** A page of keys in order as far as it reads: found by binary search, then sliced. */
function slicePage(keys: Float64Array, bound: number | undefined, limit: number, backwards: boolean) {
  if (backwards) {
    const end = firstNotBelow(keys, bound!);
    const start = Math.max(0, end - limit);
    return { keys: keys.subarray(start, end), hasMore: start > 0 };
  }
  const start = bound === undefined ? 0 : firstNotBelow(keys, bound) + 1;
  return { keys: keys.subarray(start, start + limit), hasMore: start + limit < keys.length };
}

function firstNotBelow(keys: Float64Array, bound: number): number {
  let [low, high] = [0, keys.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < bound) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Moves the `count` smallest keys to the front (in no order), the others after them: Hoare's selection. */
function selectSmallest(keys: Float64Array, count: number): void {
  let [low, high] = [0, keys.length - 1];
  while (low < high) {
    const pivot = keys[(low + high) >>> 1]!;
    let [i, j] = [low, high];
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) {
        const swapped = keys[i]!;
        keys[i++] = keys[j]!;
        keys[j--] = swapped;
      }
    }
    // Now keys[low..j] ≤ pivot ≤ keys[i..high], and a key between them is the pivot: the split before `count` lies
    // within one side, to be made there, or between them, where it is made.
    if (count <= j) high = j;
    else if (count > i) low = i;
    else return;
  }
}
