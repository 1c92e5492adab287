import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/careers/build-catalogue.js';
import type { SearchQuery } from '../../src/careers/catalogue.js';
import { BROAD_ANSWER, titleSearch } from '../../src/careers/title-search.js';
import { onetFiles, onetMissing } from '../support/onet-release.js';
import { everyResult } from '../support/search-results.js';

describe.skipIf(onetMissing)('title search over the O*NET release', () => {
  const catalogue = onetMissing ? undefined : buildCatalogue(onetFiles(), '27.0');
  const searchOf = catalogue === undefined ? undefined : titleSearch(catalogue);
  const search = (query: SearchQuery) => (searchOf === undefined ? [] : everyResult(searchOf(query)));
  const titles = (query: string, count = 10) =>
    search({ query })
      .slice(0, count)
      .map(({ title }) => title);

  it('finds the registered nurses\' occupation among the first results of "nur"', () => {
    const first = search({ query: 'nur' }).slice(0, 10);
    expect(first).toContainEqual(
      expect.objectContaining({ title: 'Registered Nurses', titleKind: 'occupation', occupationCode: '29-1141.00' }),
    );
  });

  it('finds the word a query misspells by one letter, ahead of the other matches', () => {
    expect(titles('enginer')).toHaveLength(10);
    for (const title of titles('enginer')) expect(title).toMatch(/\bengineer/i);
    expect(titles('softwre develper').length).toBeGreaterThan(0);
    for (const title of titles('softwre develper')) expect(title).toMatch(/\bsoftware\b.*\bdeveloper|\bdeveloper.*\bsoftware\b/i);
    expect(titles('regstered nurses', 3)).toContain('Registered Nurses');
  });

  it('finds a title without its accents from a query with them', () => {
    const accented = search({ query: 'résumé writer' });
    expect(accented.length).toBeGreaterThan(0);
    for (const career of accented) expect(career.title).toMatch(/\bresume writer/i);
    expect(accented).toEqual(search({ query: 'RESUME WRITER' }));
  });

  it('keeps to the filters, and lists every title without a query', () => {
    const zones = new Map(catalogue?.occupations.map((occupation) => [occupation.code, occupation.jobZone]));
    const zoned = search({ query: 'nur', jobZones: [3] });
    expect(zoned.length).toBeGreaterThan(0);
    for (const career of zoned) expect(zones.get(career.occupationCode)).toBe(3);
    const nurses = search({ occupationCode: '29-1141.00' });
    expect(nurses.length).toBeGreaterThan(10);
    for (const career of nurses) expect(career.occupationCode).toBe('29-1141.00');
    expect(search({})).toHaveLength(catalogue?.careers.length ?? 0);
  });

  it('answers the broad one-word queries made with the index exactly as when they are asked, pages and all', () => {
    // The same catalogue searched with no answers made beforehand: each query is ranked when asked.
    const asked = catalogue === undefined ? undefined : titleSearch(catalogue, Number.POSITIVE_INFINITY);
    const words = new Set(catalogue?.careers.flatMap(({ title }) => title.toLowerCase().match(/[a-z]+/g) ?? []));
    const beginnings = [...new Set([...words].flatMap((word) => Array.from(word, (_, units) => word.slice(0, units + 1))))];
    const ids = (careers: readonly { id: string }[]) => careers.map(({ id }) => id);
    let broad = 0;
    for (const query of beginnings) {
      const made = search({ query });
      expect(ids(made), query).toEqual(ids(everyResult(asked!({ query }))));
      if (made.length >= BROAD_ANSWER) broad++;
    }
    expect(broad).toBeGreaterThan(1500);
    // A cursor in an answer made beforehand, which its results share: read forwards and back, it stays as it was.
    const man = searchOf!({ query: 'man' });
    // Made beforehand, not kept among the recent answers: each search answers new results over the one shared answer.
    expect(searchOf!({ query: 'man' })).not.toBe(man);
    const tenth = man.page({ limit: 10 })!.careers[9]!.id;
    const next = man.page({ limit: 5, after: tenth })!;
    expect(man.page({ limit: 5, before: next.careers[0]!.id })!.careers.at(-1)!.id).toBe(tenth);
    expect(ids(everyResult(searchOf!({ query: 'man' })))).toEqual(ids(everyResult(asked!({ query: 'man' }))));
  });
});
