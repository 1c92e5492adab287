import { describe, expect, it } from 'vitest';
import { buildCatalogue, careerId, releaseOf } from '../../src/careers/build-catalogue.js';
import { ReleaseError } from '../../src/careers/release-tables.js';

// A release written by hand in O*NET's text format (tab-delimited, a header row): three made-up occupations.
const tsv = (...lines: string[][]) => `${lines.map((cells) => cells.join('\t')).join('\r\n')}\r\n`;

function release(overrides: Record<string, string | undefined> = {}): Map<string, string> {
  const files: Record<string, string | undefined> = {
    'Read Me.txt': 'O*NET 27.1 Database\nNovember 2022 Release\n',
    'Occupation Data.txt': tsv(
      ['O*NET-SOC Code', 'Title', 'Description'],
      ['99-2002.00', 'Kite Testers', 'Fly kites to see that they fly.'],
      ['99-1001.00', 'Lantern  Keepers ', 'Keep lanterns lit.'],
      ['99-3003.00', 'Puzzle Setters', 'Set puzzles.'],
    ),
    'Job Zones.txt': tsv(
      ['O*NET-SOC Code', 'Job Zone', 'Date', 'Domain Source'],
      ['99-1001.00', '2', '07/2014', 'Analyst'],
      ['99-2002.00', '4', '07/2014', 'Analyst'],
    ),
    'Interests.txt': tsv(
      ['O*NET-SOC Code', 'Element ID', 'Element Name', 'Scale ID', 'Data Value', 'Date', 'Domain Source'],
      ['99-1001.00', '1.B.1.a', 'Realistic', 'OI', '5.00', '06/2008', 'Analyst'],
      ['99-1001.00', '1.B.1.b', 'Investigative', 'OI', '2.00', '06/2008', 'Analyst'],
      ['99-1001.00', '1.B.1.c', 'Artistic', 'OI', '3.50', '06/2008', 'Analyst'],
      ['99-1001.00', '1.B.1.d', 'Social', 'OI', '3.50', '06/2008', 'Analyst'],
      ['99-1001.00', '1.B.1.e', 'Enterprising', 'OI', '1.00', '06/2008', 'Analyst'],
      ['99-1001.00', '1.B.1.f', 'Conventional', 'OI', '3.00', '06/2008', 'Analyst'],
      ['99-1001.00', '1.B.1.g', 'First Interest High-Point', 'IH', '1.00', '06/2008', 'Analyst'],
      ['99-2002.00', '1.B.1.e', 'Enterprising', 'OI', '4.00', '06/2008', 'Analyst'],
      ['99-2002.00', '1.B.1.d', 'Social', 'OI', '6.00', '06/2008', 'Analyst'],
    ),
    'Related Occupations.txt': tsv(
      ['O*NET-SOC Code', 'Related O*NET-SOC Code', 'Relatedness Tier', 'Index'],
      ['99-1001.00', '99-3003.00', 'Primary-Long', '2'],
      ['99-1001.00', '99-2002.00', 'Primary-Short', '1'],
      ['99-1001.00', '11-0000.00', 'Supplemental', '3'],
    ),
    'Alternate Titles.txt': tsv(
      ['O*NET-SOC Code', 'Alternate Title', 'Short Title', 'Source(s)'],
      ['99-1001.00', 'Lamplighter', 'n/a', '08'],
      ['99-1001.00', 'lantern keepers', 'n/a', '08'],
      ['99-1001.00', 'Beacon Tender', 'n/a', '08'],
      ['99-2002.00', 'Kite Pilot', 'n/a', '08'],
    ),
    'Sample of Reported Titles.txt': tsv(
      ['O*NET-SOC Code', 'Reported Job Title', 'Shown in My Next Move'],
      ['99-1001.00', 'LAMPLIGHTER', 'Y'],
      ['99-1001.00', 'Night  Lamp Keeper', 'N'],
      ['99-4004.00', 'Nobody', 'N'],
    ),
    // The mapping's other descriptors: none rated here, so it profiles no occupation (its own tests cover that).
    'Work Styles.txt': tsv(['O*NET-SOC Code', 'Element ID', 'Element Name', 'Scale ID', 'Data Value']),
    'Work Values.txt': tsv(['O*NET-SOC Code', 'Element ID', 'Element Name', 'Scale ID', 'Data Value']),
    'Skills.txt': tsv(['O*NET-SOC Code', 'Element ID', 'Element Name', 'Scale ID', 'Data Value', 'Not Relevant']),
    'Tasks to DWAs.txt': tsv(['O*NET-SOC Code', 'Task ID', 'DWA ID']),
    ...overrides,
  };
  return new Map(Object.entries(files).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

describe('buildCatalogue', () => {
  const catalogue = buildCatalogue(release(), '27.1');

  it('lists the occupations by code with their job zone, RIASEC code and related occupations', () => {
    expect(catalogue).toMatchObject({ release: '27.1', mapping: 'careers-map-v1' });
    expect(catalogue.occupations.map(({ code, title, jobZone, riasec, related }) => ({ code, title, jobZone, riasec, related }))).toEqual([
      // Artistic and Social tie at 3.5: RIASEC's own order breaks it; the high-point rows (IH) are not ratings.
      { code: '99-1001.00', title: 'Lantern Keepers', jobZone: 2, riasec: 'RAS', related: ['99-2002.00', '99-3003.00'] },
      { code: '99-2002.00', title: 'Kite Testers', jobZone: 4, riasec: 'SE', related: [] },
      { code: '99-3003.00', title: 'Puzzle Setters', jobZone: null, riasec: '', related: [] },
    ]);
    expect(catalogue.occupations[0]!.description).toBe('Keep lanterns lit.');
  });

  it('makes one career per distinct title, its own title first, a repeated title keeping its first kind', () => {
    const keeper = catalogue.careers.filter((career) => career.occupationCode === '99-1001.00');
    expect(keeper.map(({ title, titleKind }) => [title, titleKind])).toEqual([
      ['Lantern Keepers', 'occupation'],
      ['Beacon Tender', 'alternate'],
      ['Lamplighter', 'alternate'],
      ['Night Lamp Keeper', 'reported'],
    ]);
    expect(catalogue.careers.map((career) => career.occupationCode)).toEqual([
      '99-1001.00',
      '99-1001.00',
      '99-1001.00',
      '99-1001.00',
      '99-2002.00',
      '99-2002.00',
      '99-3003.00',
    ]);
  });

  it('keeps a career id across imports, distinct per occupation and title', () => {
    const again = buildCatalogue(
      release({ 'Alternate Titles.txt': tsv(['O*NET-SOC Code', 'Alternate Title'], ['99-1001.00', 'Lamplighter']) }),
      '27.1',
    );
    const idOf = (c: typeof catalogue, title: string) => c.careers.find((career) => career.title === title)?.id;
    expect(idOf(again, 'Lamplighter')).toBe(idOf(catalogue, 'Lamplighter'));
    expect(idOf(catalogue, 'Lamplighter')).toMatch(/^car_[0-9a-f]{16}$/);
    expect(new Set(catalogue.careers.map((career) => career.id)).size).toBe(catalogue.careers.length);
    expect(careerId('99-1001.00', 'lamplighter')).not.toBe(careerId('99-2002.00', 'lamplighter'));
  });

  it('leaves an occupation the mapping cannot profile without a profile, and says why', () => {
    expect(catalogue.occupations.map((occupation) => occupation.profile)).toEqual([null, null, null]);
    expect(catalogue.unprofiled.map(({ code }) => code).sort()).toEqual(['99-1001.00', '99-2002.00', '99-3003.00']);
    for (const { reason } of catalogue.unprofiled) expect(reason).not.toBe('');
  });

  it('names the missing file or column in one line', () => {
    expect(() => buildCatalogue(release({ 'Job Zones.txt': undefined }), '27.1')).toThrow(
      new ReleaseError('the release has no "Job Zones.txt"'),
    );
    expect(() => buildCatalogue(release({ 'Alternate Titles.txt': tsv(['O*NET-SOC Code', 'Title']) }), '27.1')).toThrow(
      new ReleaseError('"Alternate Titles.txt" has no column "Alternate Title"'),
    );
  });
});

describe('releaseOf', () => {
  it('reads the release from Read Me.txt and refuses one older than 27.0', () => {
    expect(releaseOf(release())).toBe('27.1');
    expect(releaseOf(release({ 'Read Me.txt': 'O*NET 28.0 Database\n' }))).toBe('28.0');
    expect(() => releaseOf(release({ 'Read Me.txt': 'O*NET 26.3 Database\n' }))).toThrow(
      'O*NET 26.3 is older than 27.0, the oldest release this import reads',
    );
    expect(() => releaseOf(release({ 'Read Me.txt': 'hello\n' }))).toThrow('"Read Me.txt" does not name an O*NET release');
    expect(() => releaseOf(release({ 'Read Me.txt': undefined }))).toThrow('the release has no "Read Me.txt"');
  });
});
