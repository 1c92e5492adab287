import { describe, expect, it } from 'vitest';
import type { Career, Catalogue, Occupation, SearchQuery, TitleKind } from '../../src/careers/catalogue.js';
import { titleSearch } from '../../src/careers/title-search.js';
import { smallCatalogue } from '../support/careers-fixture.js';
import { everyResult } from '../support/search-results.js';

const career = (id: string, title: string, titleKind: TitleKind, occupationCode: string): Career => ({
  id,
  title,
  titleKind,
  occupationCode,
});

const occupation = (code: string, title: string, jobZone: Occupation['jobZone']): Occupation => ({
  code,
  title,
  description: `${title}, written by hand for these tests.`,
  jobZone,
  riasec: '',
  related: [],
  profile: null,
});

/** A catalogue of hand-written titles (never O*NET's), each there for one rule of matching or ranking. */
function titlesCatalogue(): Catalogue {
  const careers = [
    career('car_rn', 'Registered Nurses', 'occupation', '29-0001.00'),
    career('car_reg_er_nurse', 'Registered Emergency Nurse', 'alternate', '29-0001.00'),
    career('car_nurse_aide', 'Nurse Aide', 'alternate', '29-0001.00'),
    career('car_zoo_nurse', 'Zoo Nurse', 'alternate', '29-0001.00'),
    career('car_night_nursery', 'Night Nursery', 'alternate', '29-0001.00'),
    career('car_ward_nurses', 'Ward Nurses', 'reported', '29-0001.00'),
    career('car_resume', 'Résumé Writer', 'alternate', '13-0002.00'),
    career('car_resume_typist', 'Resume Typist', 'reported', '13-0002.00'),
    career('car_lawyer', 'Lawyer', 'alternate', '23-0003.00'),
    career('car_corp_lawyer', 'Corporate Lawyer', 'alternate', '23-0003.00'),
    career('car_layer', 'Layer', 'alternate', '47-0004.00'),
    career('car_engineer_a', 'Engineer', 'alternate', '17-0005.00'),
    career('car_engineer_b', 'Engineer', 'alternate', '53-0006.00'),
    career('car_civil_engineer', 'Civil Engineer', 'alternate', '17-0005.00'),
    career('car_aero_engineering', 'Aerospace Engineering', 'alternate', '17-0005.00'),
    career('car_software', 'Software Tester', 'alternate', '15-0007.00'),
    career('car_music', 'Music Director', 'alternate', '27-0008.00'),
  ];
  return {
    release: '27.0',
    mapping: 'careers-map-v1',
    occupations: [
      occupation('13-0002.00', 'Writers', 3),
      occupation('15-0007.00', 'Software Testers', 4),
      occupation('17-0005.00', 'Engineers', 4),
      occupation('23-0003.00', 'Lawyers', 5),
      occupation('27-0008.00', 'Music Directors', 4),
      occupation('29-0001.00', 'Registered Nurses', 3),
      occupation('47-0004.00', 'Layers', 1),
      occupation('53-0006.00', 'Locomotive Engineers', null),
    ],
    careers,
    unprofiled: [],
  };
}

const idsOf = (catalogue: Catalogue, query: SearchQuery): string[] => everyResult(titleSearch(catalogue)(query)).map(({ id }) => id);

describe('title search: what matches', () => {
  const titles = titlesCatalogue();

  it('ignores case and accents, both ways', () => {
    expect(idsOf(titles, { query: 'REGISTERED nurses' })).toContain('car_rn');
    expect(idsOf(titles, { query: 'resume' })).toEqual(['car_resume', 'car_resume_typist']);
    expect(idsOf(titles, { query: 'RÉSUMÉ' })).toEqual(['car_resume', 'car_resume_typist']);
    expect(idsOf(smallCatalogue(), { query: 'chantéuse' })).toEqual(['car_chanteuse']);
    const dotted = { ...titles, careers: [career('car_izmir', 'İzmir Tour Guide', 'reported', '13-0002.00')] };
    expect(idsOf(dotted, { query: 'izmir' })).toEqual(['car_izmir']);
    expect(idsOf(dotted, { query: 'İZMİR' })).toEqual(['car_izmir']);
  });

  it('matches a query word at the beginning of a title word, never inside it', () => {
    expect(idsOf(smallCatalogue(), { query: 'nur' })).toEqual(['car_rn', 'car_nurse_er']);
    expect(idsOf(smallCatalogue(), { query: 'urse' })).toEqual([]);
    expect(idsOf(smallCatalogue(), { query: 'dev' })).toEqual(['car_sw_dev', 'car_app_dev']);
  });

  it('needs every query word to match some word of the title, in any order', () => {
    expect(idsOf(smallCatalogue(), { query: 'room nur' })).toEqual(['car_nurse_er']);
    expect(idsOf(smallCatalogue(), { query: 'nurse emergency' })).toEqual(['car_nurse_er']);
    expect(idsOf(smallCatalogue(), { query: 'software nurse' })).toEqual([]);
  });

  it('forgives one typo in a query word of 5 or more letters: insertion, deletion, replacement or swap', () => {
    expect(idsOf(titles, { query: 'enginer' })).toContain('car_engineer_a'); // a letter missing
    expect(idsOf(titles, { query: 'softwarre' })).toEqual(['car_software']); // one too many
    expect(idsOf(titles, { query: 'softwaxe' })).toEqual(['car_software']); // one replaced
    expect(idsOf(titles, { query: 'sfotware' })).toEqual(['car_software']); // two swapped
    expect(idsOf(titles, { query: 'musci' })).toEqual(['car_music']); // 5 letters, two swapped
  });

  it('forgives a typo against the beginning of a title word', () => {
    expect(idsOf(smallCatalogue(), { query: 'nurce' })).toEqual(['car_rn', 'car_nurse_er']);
  });

  it('forgives no typo in a word of 4 letters or fewer, and never two typos', () => {
    expect(idsOf(titles, { query: 'msuic' })).toEqual(['car_music']);
    expect(idsOf(titles, { query: 'msui' })).toEqual([]);
    expect(idsOf(titles, { query: 'nurz' })).toEqual([]);
    expect(idsOf(titles, { query: 'enjiner' })).toEqual([]);
    expect(idsOf(titles, { query: 'sfotwaer' })).toEqual([]);
  });

  it('counts a repeated query word once, in matching and in ranking', () => {
    // Counted twice, "night" exact would outweigh "nurse" exact and put Night Nurses first.
    const nights = {
      ...titles,
      careers: [
        career('car_night_nurses', 'Night Nurses', 'reported', '29-0001.00'),
        career('car_nights_nurse', 'Nights Nurse', 'alternate', '29-0001.00'),
      ],
    };
    expect(idsOf(nights, { query: 'night nurse' })).toEqual(['car_nights_nurse', 'car_night_nurses']);
    expect(idsOf(nights, { query: 'night NURSE Night' })).toEqual(['car_nights_nurse', 'car_night_nurses']);
  });

  it('answers an empty list when nothing matches', () => {
    expect(everyResult(titleSearch(titles)({ query: 'astronaut' }))).toEqual([]);
    expect(everyResult(titleSearch(titles)({ query: 'nurse', occupationCode: '15-0007.00' }))).toEqual([]);
  });
});

describe('title search: the order', () => {
  const titles = titlesCatalogue();

  it('puts matches without a typo before matches with one, even when those are shorter', () => {
    expect(idsOf(titles, { query: 'lawyer' })).toEqual(['car_lawyer', 'car_corp_lawyer', 'car_layer']);
  });

  it('puts titles with fewer words first', () => {
    expect(idsOf(titles, { query: 'registered nurse' })).toEqual(['car_rn', 'car_reg_er_nurse']);
  });

  it('puts an exact word before a beginning, and a typo on a whole word before one on a beginning', () => {
    const nurse = idsOf(titles, { query: 'nurse' });
    expect(nurse).toContain('car_night_nursery');
    expect(nurse.indexOf('car_zoo_nurse')).toBeGreaterThanOrEqual(0);
    expect(nurse.indexOf('car_zoo_nurse')).toBeLessThan(nurse.indexOf('car_night_nursery'));
    expect(idsOf(titles, { query: 'enginer' })).toEqual(['car_engineer_a', 'car_engineer_b', 'car_civil_engineer', 'car_aero_engineering']);
  });

  it("puts the occupation's own title before alternate titles, and those before reported ones", () => {
    expect(idsOf(titles, { query: 'nur' })).toEqual([
      'car_rn',
      'car_night_nursery',
      'car_nurse_aide',
      'car_zoo_nurse',
      'car_ward_nurses',
      'car_reg_er_nurse',
    ]);
  });

  it('breaks the remaining ties by title, then by id, so the same title in two occupations has one order', () => {
    const twice = idsOf(titles, { query: 'engineer' }).slice(0, 2);
    expect(twice).toEqual(['car_engineer_a', 'car_engineer_b']);
    const reversed = { ...titles, careers: [...titles.careers].reverse() };
    expect(idsOf(reversed, { query: 'engineer' }).slice(0, 2)).toEqual(twice);
  });
});

describe('title search: no query and the filters', () => {
  const titles = titlesCatalogue();

  it('without a query lists every career by title, ignoring case and accents, whatever the catalogue order', () => {
    const all = everyResult(titleSearch(titles)({})).map(({ title }) => title);
    expect(all).toHaveLength(titles.careers.length);
    expect(all.slice(0, 4)).toEqual(['Aerospace Engineering', 'Civil Engineer', 'Corporate Lawyer', 'Engineer']);
    expect(all.indexOf('Résumé Writer')).toBe(all.indexOf('Resume Typist') + 1);
    expect(everyResult(titleSearch({ ...titles, careers: [...titles.careers].reverse() })({}))).toEqual(
      everyResult(titleSearch(titles)({})),
    );
  });

  it('takes a query of blanks or punctuation alone as no query', () => {
    const all = idsOf(titles, {});
    expect(idsOf(titles, { query: '' })).toEqual(all);
    expect(idsOf(titles, { query: '  -- ' })).toEqual(all);
  });

  it("keeps the careers whose occupation's job zone is among those asked, never one without a job zone", () => {
    expect(idsOf(titles, { query: 'engineer', jobZones: [4] })).toEqual(['car_engineer_a', 'car_civil_engineer', 'car_aero_engineering']);
    expect(idsOf(titles, { jobZones: [1, 5] })).toEqual(['car_corp_lawyer', 'car_lawyer', 'car_layer']);
    expect(idsOf(titles, { query: 'engineer', jobZones: [] })).toEqual([]);
    expect(idsOf(titles, { jobZones: [1, 2, 3, 4, 5] })).not.toContain('car_engineer_b');
  });

  it("keeps one occupation's careers, by its exact code", () => {
    expect(idsOf(titles, { occupationCode: '23-0003.00' })).toEqual(['car_corp_lawyer', 'car_lawyer']);
    expect(idsOf(titles, { query: 'lawyer', occupationCode: '23-0003.00' })).toEqual(['car_lawyer', 'car_corp_lawyer']);
    expect(idsOf(titles, { occupationCode: '23-0003' })).toEqual([]);
  });

  it('answers the one-word queries it made beforehand as it answers them when asked, pages and all', () => {
    // Every answer of two careers or more made beforehand, against none: every beginning of every title word.
    const [made, asked] = [titleSearch(titles, 2), titleSearch(titles, Number.POSITIVE_INFINITY)];
    const words = titles.careers.flatMap(({ title }) => title.toLowerCase().match(/[a-z]+/g) ?? []);
    for (const query of new Set(words.flatMap((word) => Array.from(word, (_, units) => word.slice(0, units + 1))))) {
      expect(everyResult(made({ query })), query).toEqual(everyResult(asked({ query })));
    }
    // "engineer" (eight letters, so typos count too) was made beforehand: not a recent answer, new results over it.
    const engineer = made({ query: 'engineer' });
    expect(made({ query: 'engineer' })).not.toBe(engineer);
    expect(asked({ query: 'engineer' })).toBe(asked({ query: 'engineer' }));
    const all = everyResult(engineer).map(({ id }) => id);
    expect(all.length).toBeGreaterThan(2);
    const [first, second] = [engineer.page({ limit: 1 })!, engineer.page({ limit: 10, after: all[0]! })!];
    expect(first.careers.map(({ id }) => id)).toEqual([all[0]]);
    expect(second.careers.map(({ id }) => id)).toEqual(all.slice(1));
    expect(engineer.page({ limit: 10, before: all[1]! })!.careers.map(({ id }) => id)).toEqual([all[0]]);
    expect(everyResult(made({ query: 'engineer' })).map(({ id }) => id)).toEqual(all);
  });

  it('answers a repeated query from its recent answers, however the query is spelled', () => {
    const search = titleSearch(titles);
    const first = search({ query: 'nur', jobZones: [3, 4] });
    expect(everyResult(first).length).toBeGreaterThan(0);
    // The very answer, not one ranked again: the spelling and the zones' order make the same key.
    expect(search({ query: '  NUR ', jobZones: [4, 3] })).toBe(first);
    expect(search({ query: 'nur', jobZones: [3, 4] })).toBe(first);
    expect(search({ query: 'nur', jobZones: [3] })).not.toBe(first);
  });
});
