import { createHash } from 'node:crypto';
import { compareCodeUnits as compare } from '../support/code-units.js';
import { careersMapVersion } from './careers-map-v1.js';
import type { Career, Catalogue, JobZone, Occupation, TitleKind } from './catalogue.js';
import { deriveProfiles } from './occupation-profiles.js';
import { ReleaseError, type ReleaseFiles, readTable } from './release-tables.js';

/** The oldest release whose files and columns this import reads. */
const OLDEST_RELEASE = [27, 0] as const;

/**
 * The release's files any part of an import may read (the subset at ../shared/data/onet-27.0): a folder or zip is
 * read for these only, the rest of a full release (Technology Skills, Work Context …) is left unread.
 */
export const RELEASE_FILES: readonly string[] = [
  'Read Me.txt',
  'Occupation Data.txt',
  'Job Zones.txt',
  'Job Zone Reference.txt',
  'Interests.txt',
  'Related Occupations.txt',
  'Alternate Titles.txt',
  'Sample of Reported Titles.txt',
  'Work Styles.txt',
  'Work Values.txt',
  'Skills.txt',
  'Task Statements.txt',
  'Tasks to DWAs.txt',
  'DWA Reference.txt',
  'IWA Reference.txt',
  'Content Model Reference.txt',
  'Scales Reference.txt',
  'Level Scale Anchors.txt',
  'Abilities to Work Activities.txt',
  'Skills to Work Activities.txt',
];

const CODE = 'O*NET-SOC Code';

/** The release `Read Me.txt` names ("O*NET 27.0 Database" gives "27.0"); an older one is refused. */
export function releaseOf(files: ReleaseFiles): string {
  const readMe = files.get('Read Me.txt');
  if (readMe === undefined) throw new ReleaseError('the release has no "Read Me.txt"');
  const found = /O\*NET (\d+)\.(\d+) Database/.exec(readMe);
  if (found === null) throw new ReleaseError('"Read Me.txt" does not name an O*NET release ("O*NET 27.0 Database")');
  const [major, minor] = [Number(found[1]), Number(found[2])];
  if (major < OLDEST_RELEASE[0] || (major === OLDEST_RELEASE[0] && minor < OLDEST_RELEASE[1]))
    throw new ReleaseError(`O*NET ${found[1]}.${found[2]} is older than ${OLDEST_RELEASE.join('.')}, the oldest release this import reads`);
  return `${found[1]}.${found[2]}`;
}

/** The catalogue of a release's files: occupations, their distinct titles, and the profiles careers-map-v1 derives. */
export function buildCatalogue(files: ReleaseFiles, release: string): Catalogue {
  const rows = readTable(files, 'Occupation Data.txt', [CODE, 'Title', 'Description']);
  const codes = rows.map((row) => row[CODE]).sort();
  const known = new Set(codes);
  const jobZones = jobZonesOf(files);
  const riasec = riasecOf(files);
  const related = relatedOf(files, known);
  const { profiles, unprofiled } = deriveProfiles(files, codes);
  const occupations: Occupation[] = rows
    .map((row) => ({
      code: row[CODE],
      title: tidy(row.Title),
      description: row.Description.trim(),
      jobZone: jobZones.get(row[CODE]) ?? null,
      riasec: riasec.get(row[CODE]) ?? '',
      related: related.get(row[CODE]) ?? [],
      profile: profiles.get(row[CODE]) ?? null,
    }))
    .sort((a, b) => compare(a.code, b.code));
  return { release, mapping: careersMapVersion, occupations, careers: careersOf(files, occupations), unprofiled };
}

function jobZonesOf(files: ReleaseFiles): Map<string, JobZone> {
  const zones = new Map<string, JobZone>();
  for (const row of readTable(files, 'Job Zones.txt', [CODE, 'Job Zone'])) {
    const zone = Number(row['Job Zone']);
    if (zone >= 1 && zone <= 5 && Number.isInteger(zone)) zones.set(row[CODE], zone as JobZone);
  }
  return zones;
}

/** RIASEC in its own order: ties between equal ratings keep it (Realistic before Investigative …). */
const RIASEC = ['Realistic', 'Investigative', 'Artistic', 'Social', 'Enterprising', 'Conventional'];

/** Each occupation's three highest occupational-interest ratings (scale OI), highest first, as their first letters. */
function riasecOf(files: ReleaseFiles): Map<string, string> {
  const ratings = new Map<string, { order: number; value: number }[]>();
  for (const row of readTable(files, 'Interests.txt', [CODE, 'Element Name', 'Scale ID', 'Data Value'])) {
    const order = RIASEC.indexOf(row['Element Name']);
    const value = Number(row['Data Value']);
    if (row['Scale ID'] !== 'OI' || order < 0 || !Number.isFinite(value)) continue;
    const list = ratings.get(row[CODE]) ?? [];
    list.push({ order, value });
    ratings.set(row[CODE], list);
  }
  const codes = new Map<string, string>();
  for (const [code, list] of ratings) {
    const top = list.sort((a, b) => b.value - a.value || a.order - b.order).slice(0, 3);
    codes.set(code, top.map(({ order }) => RIASEC[order]![0]).join(''));
  }
  return codes;
}

/** Related occupations in the release's Index order, only those the release has. */
function relatedOf(files: ReleaseFiles, known: ReadonlySet<string>): Map<string, string[]> {
  const byCode = new Map<string, { code: string; index: number }[]>();
  for (const row of readTable(files, 'Related Occupations.txt', [CODE, 'Related O*NET-SOC Code', 'Index'])) {
    const code = row['Related O*NET-SOC Code'];
    if (!known.has(code)) continue;
    const list = byCode.get(row[CODE]) ?? [];
    list.push({ code, index: Number(row.Index) });
    byCode.set(row[CODE], list);
  }
  return new Map([...byCode].map(([code, list]) => [code, list.sort((a, b) => a.index - b.index).map((entry) => entry.code)]));
}

/**
 * One career per distinct title of an occupation (told apart ignoring case and spacing): its own title, then the
 * alternate and reported titles; a title seen twice keeps the first kind (occupation, then alternate, then reported). Ordered as Catalogue.careers says.
 */
function careersOf(files: ReleaseFiles, occupations: readonly Occupation[]): Career[] {
  const titles = new Map(occupations.map((occupation) => [occupation.code, new Map<string, Career>()]));
  const add = (code: string, title: string, titleKind: TitleKind) => {
    const seen = titles.get(code);
    const shown = tidy(title);
    const key = shown.toLowerCase();
    if (seen === undefined || shown === '' || seen.has(key)) return;
    seen.set(key, { id: careerId(code, key), title: shown, titleKind, occupationCode: code });
  };
  for (const occupation of occupations) add(occupation.code, occupation.title, 'occupation');
  for (const row of readTable(files, 'Alternate Titles.txt', [CODE, 'Alternate Title']))
    add(row[CODE], row['Alternate Title'], 'alternate');
  for (const row of readTable(files, 'Sample of Reported Titles.txt', [CODE, 'Reported Job Title']))
    add(row[CODE], row['Reported Job Title'], 'reported');
  return occupations.flatMap((occupation) => {
    const [own, ...rest] = titles.get(occupation.code)!.values();
    if (own === undefined) return [];
    return [own, ...rest.sort((a, b) => compare(a.title.toLowerCase(), b.title.toLowerCase()) || compare(a.title, b.title))];
  });
}

/** `car_` and 16 hex digits of the occupation code and the normalised title: the same title keeps its id across imports. */
export const careerId = (code: string, normalisedTitle: string): string =>
  `car_${createHash('sha256').update(`${code}\n${normalisedTitle}`).digest('hex').slice(0, 16)}`;

/** A title as shown: trimmed, runs of spaces made one. */
const tidy = (text: string): string => text.trim().replace(/\s+/g, ' ');
