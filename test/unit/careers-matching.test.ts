import { describe, expect, it } from 'vitest';
import type { Catalogue, OccupationMatch } from '../../src/careers/catalogue.js';
import { occupationMatcher } from '../../src/careers/matching.js';
import { intelligences, natures } from '../../src/scoring/constructs.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';

const codes = (matches: OccupationMatch[]) => matches.map((m) => m.occupation.code);
const contributions = (m: OccupationMatch) =>
  [...Object.values(m.explanation.natures), ...Object.values(m.explanation.intelligences)].map((c) => c.contribution);

describe('occupationMatcher', () => {
  const match = occupationMatcher(smallCatalogue());
  const carer = profileOf(0.35, { healing: 0.9, interpersonal: 0.85 });

  it('ranks the occupation whose demands have the person’s shape first, with fits in 0..1', () => {
    const matches = match(carer, { limit: 10 });
    expect(codes(matches)[0]).toBe('29-1141.00');
    expect(codes(match(profileOf(0.3, { musical: 0.9, entertaining: 0.8 }), { limit: 10 }))[0]).toBe('27-2042.00');
    expect(codes(match(profileOf(0.3, { protective: 0.9, bodily_gross_motor: 0.9 }), { limit: 10 }))[0]).toBe('33-2011.00');
    for (const m of matches) {
      expect(m.fit).toBeGreaterThanOrEqual(0);
      expect(m.fit).toBeLessThanOrEqual(1);
    }
    expect(matches.map((m) => m.fit)).toEqual([...matches.map((m) => m.fit)].sort((a, b) => b - a));
  });

  it('never matches an occupation without a profile', () => {
    expect(codes(match(carer, { limit: 100 }))).not.toContain('53-7199.00');
    expect(match(carer, { limit: 100 })).toHaveLength(4);
  });

  it('explains every construct alphabetically: the person’s score, the demand, and a share that sums to fit − 0.5', () => {
    const [nurse] = match(carer, { limit: 1 });
    expect(Object.keys(nurse!.explanation.natures)).toEqual([...natures].sort());
    expect(Object.keys(nurse!.explanation.intelligences)).toEqual([...intelligences].sort());
    expect(nurse!.explanation.natures.healing).toMatchObject({ person: 0.9, demand: 0.95 });
    expect(nurse!.explanation.natures.healing.contribution).toBeGreaterThan(0);
    expect(contributions(nurse!).reduce((a, b) => a + b, 0)).toBeCloseTo(nurse!.fit - 0.5, 2);
  });

  it('counts a low score where the occupation needs much against the fit', () => {
    const musicianAtHeart = profileOf(0.5, { musical: 0.95, healing: 0.05 });
    const nurse = match(musicianAtHeart, { limit: 10 }).find((m) => m.occupation.code === '29-1141.00')!;
    expect(nurse.explanation.natures.healing.contribution).toBeLessThan(0);
    expect(nurse.fit).toBeLessThan(0.5);
  });

  it('filters by job zone and honours the limit', () => {
    expect(codes(match(carer, { limit: 10, jobZones: [3] })).sort()).toEqual(['27-2042.00', '29-1141.00']);
    expect(codes(match(carer, { limit: 10, jobZones: [1] }))).toEqual([]);
    expect(match(carer, { limit: 2 })).toHaveLength(2);
  });

  it('is deterministic, and orders equal fits by occupation code', () => {
    const catalogue: Catalogue = smallCatalogue();
    const twin = { ...catalogue.occupations[2]!, code: '29-1111.00', title: 'A twin of the nurses' };
    const withTwin = { ...catalogue, occupations: [...catalogue.occupations, twin] };
    const twinMatch = occupationMatcher(withTwin);
    const matches = twinMatch(carer, { limit: 10 });
    expect(codes(matches).slice(0, 2)).toEqual(['29-1111.00', '29-1141.00']);
    expect(matches[0]!.fit).toBe(matches[1]!.fit);
    expect(twinMatch(carer, { limit: 10 })).toEqual(matches);
  });

  it('gives a profile of all-equal scores no ranking: every fit 0.5, contributions 0, in code order', () => {
    for (const level of [0, 0.5, 1]) {
      const matches = match(profileOf(level), { limit: 10 });
      expect(matches.map((m) => m.fit)).toEqual([0.5, 0.5, 0.5, 0.5]);
      expect(codes(matches)).toEqual(['15-1252.00', '27-2042.00', '29-1141.00', '33-2011.00']);
      for (const m of matches) expect(new Set(contributions(m))).toEqual(new Set([0]));
    }
  });
});
