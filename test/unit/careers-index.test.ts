import { describe, expect, it } from 'vitest';
import { indexCatalogue } from '../../src/careers/careers-index.js';
import { natures } from '../../src/scoring/constructs.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';
import { everyResult } from '../support/search-results.js';

const index = indexCatalogue(smallCatalogue());

describe('the careers index', () => {
  it('names the catalogue version and finds careers and occupations', () => {
    expect(index.version).toBe('onet-27.0/careers-map-v1');
    expect(index.career('car_chanteuse')).toMatchObject({ title: 'Chanteuse', occupationCode: '27-2042.00' });
    expect(index.career('car_none')).toBeUndefined();
    expect(index.occupation('29-1141.00')?.title).toBe('Registered Nurses');
    expect(index.occupation('99-9999.00')).toBeUndefined();
  });

  it("lists an occupation's titles, its occupation title first", () => {
    expect(index.titlesOf('15-1252.00').map((career) => career.id)).toEqual(['car_sw_dev', 'car_sw_eng', 'car_app_dev']);
    expect(index.titlesOf('99-9999.00')).toEqual([]);
  });

  it('searches titles with filters', () => {
    expect(
      everyResult(index.search({ query: 'nurse' }))
        .map((career) => career.id)
        .sort(),
    ).toEqual(['car_nurse_er', 'car_rn']);
    expect(everyResult(index.search({ jobZones: [2] })).map((career) => career.id)).toEqual(['car_firefighter']);
    expect(everyResult(index.search({ occupationCode: '27-2042.00' }))).toHaveLength(2);
  });

  it('matches a profile, fits in 0..1, and never an unprofiled occupation', () => {
    const matches = index.match(profileOf(0.2, { healing: 0.95, interpersonal: 0.9 }), { limit: 10 });
    expect(matches[0]?.occupation.code).toBe('29-1141.00');
    expect(matches.map((match) => match.occupation.code)).not.toContain('53-7199.00');
    for (const match of matches) expect(match.fit).toBeGreaterThanOrEqual(0);
    expect(Object.keys(matches[0]!.explanation.natures)).toEqual([...natures]);
    expect(index.match(profileOf(0.5), { limit: 2, jobZones: [3] }).every((match) => match.occupation.jobZone === 3)).toBe(true);
  });
});
