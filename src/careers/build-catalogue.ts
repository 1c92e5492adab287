import { careersMapVersion } from './careers-map-v1.js';
import type { Catalogue, JobZone, Occupation } from './catalogue.js';
import { deriveProfiles } from './occupation-profiles.js';
import { type ReleaseFiles, readTable } from './release-tables.js';

/**
 * A minimal catalogue from a release: occupations with their job zones and profiles, and only the occupation titles
 * as careers. A stand-in for the import part's own module (same signature), which adds the alternate and reported
 * titles, RIASEC codes and related occupations; it exists so the mapping's validity can be checked on a release.
 */
export function buildCatalogue(files: ReleaseFiles, release: string): Catalogue {
  const data = readTable(files, 'Occupation Data.txt', ['O*NET-SOC Code', 'Title', 'Description']).sort((a, b) =>
    a['O*NET-SOC Code'] < b['O*NET-SOC Code'] ? -1 : 1,
  );
  const zones = new Map(
    readTable(files, 'Job Zones.txt', ['O*NET-SOC Code', 'Job Zone']).map((row) => [
      row['O*NET-SOC Code'],
      Number(row['Job Zone']) as JobZone,
    ]),
  );
  const codes = data.map((row) => row['O*NET-SOC Code']);
  const { profiles, unprofiled } = deriveProfiles(files, codes);
  const occupations: Occupation[] = data.map((row) => ({
    code: row['O*NET-SOC Code'],
    title: row.Title,
    description: row.Description,
    jobZone: zones.get(row['O*NET-SOC Code']) ?? null,
    riasec: '',
    related: [],
    profile: profiles.get(row['O*NET-SOC Code']) ?? null,
  }));
  return {
    release,
    mapping: careersMapVersion,
    occupations,
    careers: occupations.map((o) => ({ id: `car_${o.code}`, title: o.title, titleKind: 'occupation', occupationCode: o.code })),
    unprofiled,
  };
}
