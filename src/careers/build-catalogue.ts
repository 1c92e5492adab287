import { createHash } from 'node:crypto';
import type { Career, Catalogue, JobZone, Occupation, TitleKind } from './catalogue.js';
import { type ReleaseFiles, readTable } from './release-tables.js';

/**
 * STAND-IN for the search branch (issue 43): the owner's buildCatalogue replaces this file at merge. It reads only
 * what search needs (occupations, job zones, the three kinds of titles) and derives no profiles.
 */
export function buildCatalogue(files: ReleaseFiles, release: string): Catalogue {
  const CODE = 'O*NET-SOC Code';
  const zones = new Map(readTable(files, 'Job Zones.txt', [CODE, 'Job Zone']).map((row) => [row[CODE], Number(row['Job Zone'])]));
  const occupations: Occupation[] = readTable(files, 'Occupation Data.txt', [CODE, 'Title', 'Description'])
    .map((row) => ({
      code: row[CODE],
      title: row.Title,
      description: row.Description,
      jobZone: (zones.get(row[CODE]) ?? null) as JobZone | null,
      riasec: '',
      related: [],
      profile: null,
    }))
    .sort((a, b) => (a.code < b.code ? -1 : 1));
  const titles: [string, string, TitleKind][] = [
    ...occupations.map((o): [string, string, TitleKind] => [o.code, o.title, 'occupation']),
    ...readTable(files, 'Alternate Titles.txt', [CODE, 'Alternate Title']).map((r): [string, string, TitleKind] => [
      r[CODE],
      r['Alternate Title'],
      'alternate',
    ]),
    ...readTable(files, 'Sample of Reported Titles.txt', [CODE, 'Reported Job Title']).map((r): [string, string, TitleKind] => [
      r[CODE],
      r['Reported Job Title'],
      'reported',
    ]),
  ];
  const seen = new Set<string>();
  const careers: Career[] = [];
  for (const [code, title, titleKind] of titles) {
    const key = `${code}\n${title.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    careers.push({ id: `car_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`, title, titleKind, occupationCode: code });
  }
  const kindOrder = { occupation: 0, alternate: 1, reported: 2 };
  careers.sort((a, b) =>
    a.occupationCode !== b.occupationCode
      ? a.occupationCode < b.occupationCode
        ? -1
        : 1
      : kindOrder[a.titleKind] - kindOrder[b.titleKind] || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0),
  );
  const unprofiled = occupations.map(({ code }) => ({ code, reason: 'the search branch stand-in derives no profiles' }));
  return { release, mapping: 'careers-map-v1', occupations, careers, unprofiled };
}
