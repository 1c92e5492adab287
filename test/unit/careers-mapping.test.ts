import { describe, expect, it } from 'vitest';
import { careersMapV1, careersMapVersion } from '../../src/careers/careers-map-v1.js';
import { deriveProfiles } from '../../src/careers/occupation-profiles.js';
import { ReleaseError } from '../../src/careers/release-tables.js';
import { intelligences, natures } from '../../src/scoring/constructs.js';

/** A hand-written occupation in the release's terms: its ratings by element id and the DWAs of its tasks. */
interface Spec {
  code: string;
  interests?: Record<string, number>;
  styles?: Record<string, number>;
  values?: Record<string, number>;
  /** Element id -> [importance, level]. */
  skills?: Record<string, [number, number]>;
  dwas?: string[];
  zone?: number;
}

const table = (header: string[], rows: (string | number)[][]): string =>
  `${[header.join('\t'), ...rows.map((row) => row.join('\t'))].join('\n')}\n`;

/** The six files deriveProfiles reads, in the release's columns (with a column it ignores, as releases add some). */
function release(specs: Spec[]): Map<string, string> {
  const rated = (scale: string, pick: (s: Spec) => Record<string, number> | undefined) =>
    table(
      ['O*NET-SOC Code', 'Element ID', 'Element Name', 'Scale ID', 'Data Value', 'Date'],
      specs.flatMap((s) => Object.entries(pick(s) ?? {}).map(([id, v]) => [s.code, id, 'x', scale, v, '08/2022'])),
    );
  return new Map([
    ['Interests.txt', rated('OI', (s) => s.interests)],
    ['Work Styles.txt', rated('IM', (s) => s.styles)],
    ['Work Values.txt', rated('EX', (s) => s.values)],
    [
      'Skills.txt',
      table(
        ['O*NET-SOC Code', 'Element ID', 'Scale ID', 'Data Value', 'Not Relevant'],
        specs.flatMap((s) =>
          Object.entries(s.skills ?? {}).flatMap(([id, [im, lv]]) => [
            [s.code, id, 'IM', im, ''],
            // Hand-written convention: a level under 1 is one O*NET marks not relevant.
            [s.code, id, 'LV', lv, lv < 1 ? 'Y' : 'N'],
          ]),
        ),
      ),
    ],
    [
      'Tasks to DWAs.txt',
      table(
        ['O*NET-SOC Code', 'Task ID', 'DWA ID'],
        specs.flatMap((s) => (s.dwas ?? []).map((dwa, i) => [s.code, i, dwa])),
      ),
    ],
    [
      'Job Zones.txt',
      table(
        ['O*NET-SOC Code', 'Job Zone'],
        specs.flatMap((s) => (s.zone ? [[s.code, s.zone]] : [])),
      ),
    ],
  ]);
}

const everyRating = {
  interests: { '1.B.1.a': 3 },
  styles: { '1.C.6': 3 },
  values: { '1.B.2.d': 4 },
  skills: { '2.A.1.c': [3, 3] as [number, number] },
};
const musician: Spec = {
  code: '27-0001.00',
  ...everyRating,
  interests: { '1.B.1.c': 7, '1.B.1.f': 1 },
  dwas: ['4.A.4.a.8.I01.D03', '4.A.2.b.2.I25.D01', '4.A.1.a.1.I01.D02'],
  zone: 3,
};
const farmer: Spec = {
  code: '45-0001.00',
  ...everyRating,
  interests: { '1.B.1.a': 7, '1.B.1.c': 1, '1.B.1.f': 2 },
  dwas: ['4.A.4.a.5.I04.D01', '4.A.3.a.1.I17.D02', '4.A.3.a.1.I07.D01'],
  zone: 2,
};
const clerk: Spec = {
  code: '43-0001.00',
  ...everyRating,
  interests: { '1.B.1.c': 2, '1.B.1.f': 7 },
  styles: { '1.C.5.b': 5, '1.C.5.a': 5 },
  dwas: ['4.A.4.c.1.I01.D01', '4.A.3.b.6.I08.D01'],
};
const unrated: Spec = {
  code: '53-0001.00',
  interests: { '1.B.1.a': 5 },
  values: { '1.B.2.d': 3 },
  skills: { '2.A.1.c': [2, 2] },
  dwas: ['4.A.3.a.1.I07.D01'],
};

describe('the careers-map-v1 table', () => {
  it('maps each of the 19 constructs once, in its family, with weights summing to 1 and a reason for each', () => {
    expect(careersMapVersion).toBe('careers-map-v1');
    expect(careersMapV1.filter((r) => r.family === 'natures').map((r) => r.construct)).toEqual([...natures]);
    expect(careersMapV1.filter((r) => r.family === 'intelligences').map((r) => r.construct)).toEqual([...intelligences]);
    for (const row of careersMapV1) {
      expect(
        row.terms.reduce((sum, term) => sum + term.weight, 0),
        row.construct,
      ).toBeCloseTo(1, 9);
      expect(row.standIn, row.construct).not.toBe('');
      for (const term of row.terms) expect(term.reason.length * term.label.length * term.weight, term.label).toBeGreaterThan(0);
    }
  });

  it('relies on at least one rating in every construct, so no construct rests on tasks alone', () => {
    for (const row of careersMapV1)
      expect(
        row.terms.some((term) => term.source !== 'activity'),
        row.construct,
      ).toBe(true);
  });
});

describe('deriveProfiles', () => {
  const codes = [clerk.code, musician.code, farmer.code, unrated.code, '99-0001.00'];
  const { profiles, unprofiled } = deriveProfiles(release([musician, farmer, clerk, unrated]), codes);

  it('scores each construct 0..1 over the occupations, the one that calls on it most at 1', () => {
    expect(profiles.get(musician.code)!.intelligences.musical).toBe(1);
    expect(profiles.get(farmer.code)!.intelligences.naturalistic).toBe(1);
    expect(profiles.get(clerk.code)!.natures.administrative).toBe(1);
    expect(profiles.get(farmer.code)!.intelligences.musical).toBe(0);
    for (const profile of profiles.values()) {
      for (const value of [...Object.values(profile.natures), ...Object.values(profile.intelligences)]) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }
    }
  });

  it('keys every profile alphabetically', () => {
    const profile = profiles.get(farmer.code)!;
    expect(Object.keys(profile.natures)).toEqual([...natures].sort());
    expect(Object.keys(profile.intelligences)).toEqual([...intelligences].sort());
  });

  it('leaves occupations without every rating unprofiled, naming what is missing', () => {
    expect([...profiles.keys()].sort()).toEqual([musician.code, clerk.code, farmer.code]);
    expect(unprofiled).toEqual([
      { code: unrated.code, reason: 'missing from Work Styles' },
      { code: '99-0001.00', reason: 'missing from Interests, Work Styles, Work Values, Skills, Tasks to DWAs' },
    ]);
  });

  it('weighs a skill by importance × level, a level marked not relevant counting as 0', () => {
    const skilled = (code: string, importance: number, level: number): Spec => ({
      ...clerk,
      code,
      skills: { '2.A.1.c': [importance, level] },
    });
    const [irrelevant, slight, practised] = [skilled('43-0002.00', 5, 0.5), skilled('43-0003.00', 1, 1), skilled('43-0004.00', 2, 5)];
    const codes = [irrelevant.code, slight.code, practised.code];
    const derived = deriveProfiles(release([irrelevant, slight, practised]), codes).profiles;
    const linguistic = codes.map((code) => derived.get(code)!.intelligences.linguistic);
    expect(linguistic).toEqual([0, expect.any(Number), 1]);
    expect(linguistic[1]).toBeGreaterThan(0);
  });

  it('names the file or the column a release lacks', () => {
    const files = release([musician]);
    files.delete('Work Values.txt');
    expect(() => deriveProfiles(files, [musician.code])).toThrow(new ReleaseError('the release has no "Work Values.txt"'));
    const noLevel = release([musician]);
    noLevel.set('Skills.txt', 'O*NET-SOC Code\tElement ID\tScale ID\tData Value\n');
    expect(() => deriveProfiles(noLevel, [musician.code])).toThrow(new ReleaseError('"Skills.txt" has no column "Not Relevant"'));
  });
});
