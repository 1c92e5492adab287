import { describe, expect, it } from 'vitest';
import type { Career, SearchResults } from '../../src/careers/catalogue.js';
import { type KeyedCareers, resultsByKey } from '../../src/careers/results-pages.js';
import { seeded } from '../support/seeded.js';

/** Careers at places 0..999; a key is its rank times 1000 plus the place, as the search's keys name places. */
const PLACES = 1000;
const careers: KeyedCareers = {
  placeOfKey: (key) => key % PLACES,
  career: (place) => ({ id: `car_${place}`, title: `Title ${place}`, titleKind: 'reported', occupationCode: '11-1011.00' }) as Career,
  placeOfId: (id) => (/^car_\d+$/.test(id) && Number(id.slice(4)) < PLACES ? Number(id.slice(4)) : undefined),
};

/** `count` distinct keys on distinct places, shuffled by a seeded generator. */
function shuffledKeys(count: number, seed: number): Float64Array {
  const random = seeded(seed);
  const next = () => Math.floor(random() * 2 ** 32);
  const places = Array.from({ length: PLACES }, (_, place) => place);
  for (let i = places.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [places[i], places[j]] = [places[j]!, places[i]!];
  }
  // Fifty ranks for up to a thousand careers: many share one, and their places order them.
  return Float64Array.from(places.slice(0, count), (place) => (next() % 50) * PLACES + place);
}

const idsOf = (keys: Iterable<number>) => [...keys].map((key) => `car_${key % PLACES}`);

/**
 * Every page forwards, then every page backwards from the last career: the ids in order. Every page but the last
 * each way is full and says it has more; the last says it has not.
 */
function pageThrough(results: SearchResults, limit: number) {
  const forwards: string[][] = [];
  let page = results.page({ limit })!;
  forwards.push(page.careers.map(({ id }) => id));
  // At most one page per career: a cursor that led nowhere new would page for ever.
  while (page.hasMore && forwards.length <= PLACES) {
    expect(page.careers).toHaveLength(limit);
    page = results.page({ limit, after: forwards.at(-1)!.at(-1)! })!;
    forwards.push(page.careers.map(({ id }) => id));
  }
  if (forwards.flat().length > 0) expect(page.careers.length).toBeGreaterThan(0);
  const last = forwards.flat().at(-1);
  const backwards: string[][] = [];
  if (last !== undefined) {
    page = { careers: [], hasMore: true };
    let before = last;
    while (page.hasMore && backwards.length <= PLACES) {
      if (backwards.length > 0) expect(page.careers).toHaveLength(limit);
      page = results.page({ limit, before })!;
      backwards.unshift(page.careers.map(({ id }) => id));
      before = page.careers[0]?.id ?? before;
    }
    if (backwards.flat().length > 0) expect(page.careers.length).toBeGreaterThan(0);
  }
  return { forwards, backwards };
}

describe('search results, read a page at a time', () => {
  it('pages through keys in any order as a full sort would, forwards and backwards, for every page size', () => {
    for (const [count, seed] of [
      [0, 1],
      [1, 2],
      [7, 3],
      [64, 4],
      [500, 5],
    ] as const) {
      const keys = shuffledKeys(count, seed);
      const sorted = idsOf([...keys].sort((a, b) => a - b));
      for (const limit of [1, 2, 3, 10, 100]) {
        const { forwards, backwards } = pageThrough(resultsByKey(keys, false, careers), limit);
        expect(forwards.flat(), `${count} keys, pages of ${limit}`).toEqual(sorted);
        for (const page of forwards.slice(0, -1)) expect(page).toHaveLength(limit);
        // Backwards from the last career: every one before it, in the same order.
        expect(backwards.flat()).toEqual(sorted.slice(0, -1));
      }
    }
  });

  it('pages a kept answer again the same, in whatever order its pages left its keys', () => {
    const keys = shuffledKeys(300, 6);
    const results = resultsByKey(keys, false, careers);
    const first = results.page({ limit: 10 })!;
    const fifth = results.page({ limit: 3, after: first.careers[4]!.id })!;
    results.page({ limit: 10, before: first.careers[9]!.id });
    results.page({ limit: 500, after: first.careers[0]!.id });
    expect(results.page({ limit: 10 })).toEqual(first);
    expect(results.page({ limit: 3, after: first.careers[4]!.id })).toEqual(fifth);
    expect(fifth.careers).toEqual(first.careers.slice(5, 8));
  });

  it('slices keys already in order, as it selects from keys in any order', () => {
    const keys = shuffledKeys(200, 7).sort();
    for (const limit of [1, 4, 100]) {
      expect(pageThrough(resultsByKey(keys, true, careers), limit)).toEqual(pageThrough(resultsByKey(keys, false, careers), limit));
    }
  });

  it('answers no page next to a career that is not among the results', () => {
    const keys = Float64Array.from([3 * PLACES + 5, 1 * PLACES + 9]);
    for (const ascending of [false, true]) {
      const results = resultsByKey(ascending ? keys.slice().sort() : keys, ascending, careers);
      expect(results.page({ limit: 5, after: 'car_6' })).toBeUndefined();
      expect(results.page({ limit: 5, before: 'car_nowhere' })).toBeUndefined();
      expect(results.page({ limit: 5, after: 'car_9' })).toEqual({ careers: [careers.career(5)], hasMore: false });
      expect(results.page({ limit: 5, before: 'car_9' })).toEqual({ careers: [], hasMore: false });
    }
  });
});
