import { createHash } from 'node:crypto';
import { careersMapVersion } from './careers-map-v1.js';
import type { Career, Catalogue, JobZone, Occupation, TitleKind } from './catalogue.js';
import { deriveProfiles } from './occupation-profiles.js';
import { type ReleaseFiles, readTable } from './release-tables.js';

/**
 * STAND-IN for the import part's own module (same signature), kept by the mapping and search parts until it lands:
 * occupations with their job zones and profiles, and every distinct title of each (its own, alternate and reported
 * titles) as careers, so the mapping's validity and the search can be checked on a release. The import part's
 * module replaces it whole, adding RIASEC codes and related occupations.
 */
export function buildCatalogue(files: ReleaseFiles, release: string): Catalogue {
  const CODE = 'O*NET-SOC Code';
  const data = readTable(files, 'Occupation Data.txt', [CODE, 'Title', 'Description']).sort((a, b) => (a[CODE] < b[CODE] ? -1 : 1));
  const zones = new Map(
    readTable(files, 'Job Zones.txt', [CODE, 'Job Zone']).map((row) => [row[CODE], Number(row['Job Zone']) as JobZone]),
  );
  const { profiles, unprofiled } = deriveProfiles(
    files,
    data.map((row) => row[CODE]),
  );
  const occupations: Occupation[] = data.map((row) => ({
    code: row[CODE],
    title: row.Title,
    description: row.Description,
    jobZone: zones.get(row[CODE]) ?? null,
    riasec: '',
    related: [],
    profile: profiles.get(row[CODE]) ?? null,
  }));
  const titles: [string, string, TitleKind][] = [
    ...occupations.map(({ code, title }): [string, string, TitleKind] => [code, title, 'occupation']),
    ...readTable(files, 'Alternate Titles.txt', [CODE, 'Alternate Title']).map((row): [string, string, TitleKind] => [
      row[CODE],
      row['Alternate Title'],
      'alternate',
    ]),
    ...readTable(files, 'Sample of Reported Titles.txt', [CODE, 'Reported Job Title']).map((row): [string, string, TitleKind] => [
      row[CODE],
      row['Reported Job Title'],
      'reported',
    ]),
  ];
  return { release, mapping: careersMapVersion, occupations, careers: distinctCareers(titles), unprofiled };
}

/** One career per title of an occupation, told apart ignoring case; the first kind seen (occupation first) kept. */
function distinctCareers(titles: readonly [string, string, TitleKind][]): Career[] {
  const careers = new Map<string, Career>();
  for (const [code, title, titleKind] of titles) {
    const key = `${code}\n${title.toLowerCase()}`;
    if (careers.has(key)) continue;
    careers.set(key, { id: `car_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`, title, titleKind, occupationCode: code });
  }
  const kindOrder = { occupation: 0, alternate: 1, reported: 2 };
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...careers.values()].sort(
    (a, b) => compare(a.occupationCode, b.occupationCode) || kindOrder[a.titleKind] - kindOrder[b.titleKind] || compare(a.title, b.title),
  );
}
