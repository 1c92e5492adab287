import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/careers/build-catalogue.js';
import type { SearchQuery } from '../../src/careers/catalogue.js';
import { titleSearch } from '../../src/careers/title-search.js';
import { onetFiles, onetMissing } from '../support/onet-release.js';
import { everyResult } from '../support/search-results.js';
import { seeded } from '../support/seeded.js';

/** Words as search sees them (the module's comment): lower case, accents dropped, apostrophes dropped. */
const wordsOf = (title: string): string[] =>
  title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/['\u2019]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

/** Optimal string alignment distances, the textbook table: from `a` to each beginning of `b` (its last row). */
function distances(a: string, b: string): Uint8Array {
  const width = b.length + 1;
  const table = new Uint8Array((a.length + 1) * width);
  for (let j = 0; j < width; j++) table[j] = j;
  for (let i = 1; i <= a.length; i++) {
    table[i * width] = i;
    for (let j = 1; j <= b.length; j++) {
      let cell = Math.min(
        table[(i - 1) * width + j]! + 1,
        table[i * width + j - 1]! + 1,
        table[(i - 1) * width + j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cell = Math.min(cell, table[(i - 2) * width + j - 2]! + 1);
      table[i * width + j] = cell;
    }
  }
  return table.subarray(a.length * width);
}

/** How a title word matches a query word of 5+ letters: 4 exact, 3 beginning, 2 typo, 1 typo on a beginning, 0 none. */
function quality(query: string, word: string): number {
  if (word === query) return 4;
  if (word.startsWith(query)) return 3;
  // A beginning within one edit has at least query.length - 1 letters and at most query.length + 1.
  if (word.length < query.length - 1) return 0;
  const row = distances(query, word.slice(0, query.length + 1));
  if (word.length <= query.length + 1 && row[word.length] === 1) return 2;
  return row.some((cell, length) => length >= query.length - 1 && cell <= 1) ? 1 : 0;
}

/** Whole numbers below `below` from the shared seeded generator, so the queries are the same on every run. */
function seededBelow(seed: number): (below: number) => number {
  const next = seeded(seed);
  return (below) => Math.floor(next() * below);
}

/** A word with one random edit: a letter inserted, deleted, replaced, or two adjacent letters swapped. */
function misspelt(word: string, random: (below: number) => number): string {
  const letter = 'abcdefghijklmnopqrstuvwxyz'[random(26)]!;
  const at = random(word.length);
  const edits = [
    () => word.slice(0, at) + letter + word.slice(at),
    () => word.slice(0, at) + word.slice(at + 1),
    () => word.slice(0, at) + letter + word.slice(at + 1),
    () => (at + 1 < word.length ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) : word + letter),
  ];
  return edits[random(edits.length)]!();
}

describe.skipIf(onetMissing)('title search typos over the O*NET release, against a brute-force reference', () => {
  const catalogue = onetMissing ? undefined : buildCatalogue(onetFiles(), '27.0');
  const searchOf = catalogue === undefined ? undefined : titleSearch(catalogue);
  const search = (query: SearchQuery) => (searchOf === undefined ? [] : everyResult(searchOf(query)));
  const titleWords = new Map(catalogue?.careers.map((career) => [career.id, [...new Set(wordsOf(career.title))]]));
  const vocabulary = [...new Set([...titleWords.values()].flat())].sort();
  const wordIds = new Map(vocabulary.map((word, id) => [word, id]));
  const titleWordIds = new Map([...titleWords].map(([id, words]) => [id, words.map((word) => wordIds.get(word)!)]));
  const random = seededBelow(43);
  const long = vocabulary.filter((word) => word.length >= 5 && /^[a-z]+$/.test(word));
  const queries = Array.from({ length: 300 }, () => misspelt(long[random(long.length)]!, random)).filter(
    (query) => query.length >= 5 && /^[a-z]+$/.test(query),
  );

  it('finds exactly the titles with a word within one edit of the query word or of its beginning, best first', () => {
    expect(queries.length).toBeGreaterThan(250);
    for (const query of queries) {
      const qualities = Uint8Array.from(vocabulary, (word) => quality(query, word));
      const best = (id: string) => titleWordIds.get(id)!.reduce((most, word) => Math.max(most, qualities[word]!), 0);
      const expected = catalogue!.careers.filter(({ id }) => best(id) > 0).map(({ id }) => id);
      const found = search({ query });
      expect(found.map(({ id }) => id).sort(), query).toEqual(expected.sort());
      // Ranking rules 1 to 3 for one query word: no typo before a typo, then fewer words, then a better match.
      const keys = found.map(({ id }) => [best(id) < 3 ? 1 : 0, titleWords.get(id)!.length, 4 - best(id)]);
      const unordered = keys.findIndex(
        ([typo, words, worse], i) =>
          i > 0 &&
          (keys[i - 1]![0]! > typo! ||
            (keys[i - 1]![0] === typo && (keys[i - 1]![1]! > words! || (keys[i - 1]![1] === words && keys[i - 1]![2]! > worse!)))),
      );
      expect(unordered, query).toBe(-1);
    }
  });

  it('finds exactly the titles matching both words of a two-word query, the beginning of one and a typo of another', () => {
    const pairs = catalogue!.careers
      .map(({ id }) => titleWords.get(id)!.filter((word) => /^[a-z]{5,}$/.test(word)))
      .filter((words) => words.length >= 2);
    for (let checked = 0; checked < 150; ) {
      const words = pairs[random(pairs.length)]!;
      const [first, second] = [words[0]!.slice(0, 3 + random(3)), misspelt(words[1]!, random)];
      // A deletion can leave a word too short for a typo: then it is not the query this test is about.
      if (second.length < 5) continue;
      checked++;
      // A query word of 4 letters or fewer matches exactly or as a beginning only.
      const of = (word: string) =>
        Uint8Array.from(vocabulary, (title) =>
          word.length >= 5 ? quality(word, title) : title === word ? 4 : title.startsWith(word) ? 3 : 0,
        );
      const [firstQualities, secondQualities] = [of(first), of(second)];
      const both = (id: string) =>
        titleWordIds.get(id)!.some((word) => firstQualities[word]! > 0) && titleWordIds.get(id)!.some((word) => secondQualities[word]! > 0);
      const expected = catalogue!.careers.filter(({ id }) => both(id)).map(({ id }) => id);
      expect(expected.length).toBeGreaterThan(0);
      const query = `${first} ${second}`;
      expect(
        search({ query })
          .map(({ id }) => id)
          .sort(),
        query,
      ).toEqual(expected.sort());
    }
  });
});
