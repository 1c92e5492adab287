import { type Intelligence, intelligences, type Nature, natures } from '../scoring/constructs.js';
import { careersMapV1, type DescriptorSource, type MapRow } from './careers-map-v1.js';
import type { ConstructProfile } from './catalogue.js';
import { type ReleaseFiles, readTable } from './release-tables.js';

/**
 * Each occupation's construct profile under careers-map-v1, read from a release's files.
 *
 * Per occupation every descriptor of the table gets a raw value (a rating, importance × level, or a share of its
 * tasks' DWAs), which is min-max scaled over the profiled occupations so descriptors on different scales can be
 * weighted together. A construct is the weighted mean of its scaled descriptors, min-max scaled again over the
 * profiled occupations: 1 is the occupation that calls on it most, 0 the one that calls on it least. Min-max keeps
 * the shape of each construct's spread (only a few occupations are musical), which percentile ranks would flatten
 * into an even spread; on the archetypes of test/careers it placed an expected occupation group in the top 3 for
 * 32 of 34 archetypes, against 26 with percentile ranks (docs/careers-matching.md has the figures).
 */

/** The rating files an occupation must appear in to be profiled; without them a profile would be guesswork. */
const RATED: readonly { file: string; source: DescriptorSource; scale: string }[] = [
  { file: 'Interests.txt', source: 'interest', scale: 'OI' },
  { file: 'Work Styles.txt', source: 'workStyle', scale: 'IM' },
  { file: 'Work Values.txt', source: 'workValue', scale: 'EX' },
];

const key = (source: DescriptorSource, id: string): string => `${source}:${id}`;

/** Raw descriptor values by occupation code, then by `source:id`; only the descriptors the table uses. */
type Raw = Map<string, Map<string, number>>;

function cell(raw: Raw, code: string): Map<string, number> {
  const values = raw.get(code) ?? new Map<string, number>();
  raw.set(code, values);
  return values;
}

function readRatings(files: ReleaseFiles, used: ReadonlySet<string>, raw: Raw, seen: Map<string, Set<string>>): void {
  for (const { file, source, scale } of RATED) {
    const found = new Set<string>();
    for (const row of readTable(files, file, ['O*NET-SOC Code', 'Element ID', 'Scale ID', 'Data Value'])) {
      if (row['Scale ID'] !== scale) continue;
      found.add(row['O*NET-SOC Code']);
      const k = key(source, row['Element ID']);
      if (used.has(k)) cell(raw, row['O*NET-SOC Code']).set(k, Number(row['Data Value']));
    }
    seen.set(file, found);
  }
}

/** Skills count as importance × level, so a skill rated important at a trivial level weighs little; "not relevant" is level 0. */
function readSkills(files: ReleaseFiles, used: ReadonlySet<string>, raw: Raw, seen: Map<string, Set<string>>): void {
  const importance = new Map<string, number>();
  const found = new Set<string>();
  const rows = readTable(files, 'Skills.txt', ['O*NET-SOC Code', 'Element ID', 'Scale ID', 'Data Value', 'Not Relevant']);
  for (const row of rows) {
    const k = key('skill', row['Element ID']);
    if (!used.has(k)) continue;
    const at = `${row['O*NET-SOC Code']}\t${k}`;
    if (row['Scale ID'] === 'IM') importance.set(at, Number(row['Data Value']));
  }
  for (const row of rows) {
    const k = key('skill', row['Element ID']);
    if (row['Scale ID'] !== 'LV' || !used.has(k)) continue;
    const im = importance.get(`${row['O*NET-SOC Code']}\t${k}`);
    if (im === undefined) continue;
    found.add(row['O*NET-SOC Code']);
    const level = row['Not Relevant'] === 'Y' ? 0 : Number(row['Data Value']);
    cell(raw, row['O*NET-SOC Code']).set(k, im * level);
  }
  seen.set('Skills.txt', found);
}

/** Each activity term is the share of the occupation's task-to-DWA links whose DWA id starts with the term's id. */
function readActivities(files: ReleaseFiles, used: ReadonlySet<string>, raw: Raw, seen: Map<string, Set<string>>): void {
  const links = new Map<string, number>();
  for (const row of readTable(files, 'Tasks to DWAs.txt', ['O*NET-SOC Code', 'DWA ID'])) {
    const code = row['O*NET-SOC Code'];
    links.set(code, (links.get(code) ?? 0) + 1);
    const values = cell(raw, code);
    const parts = row['DWA ID'].split('.');
    for (let end = 2; end <= parts.length; end++) {
      const k = key('activity', parts.slice(0, end).join('.'));
      if (used.has(k)) values.set(k, (values.get(k) ?? 0) + 1);
    }
  }
  for (const [code, count] of links) {
    const values = raw.get(code)!;
    for (const [k, n] of values) if (k.startsWith('activity:')) values.set(k, n / count);
  }
  seen.set('Tasks to DWAs.txt', new Set(links.keys()));
}

function readJobZones(files: ReleaseFiles, raw: Raw): void {
  for (const row of readTable(files, 'Job Zones.txt', ['O*NET-SOC Code', 'Job Zone'])) {
    cell(raw, row['O*NET-SOC Code']).set(key('jobZone', ''), Number(row['Job Zone']));
  }
}

/** Min-max bounds of every descriptor over the profiled occupations. */
function bounds(raw: Raw, codes: readonly string[], used: ReadonlySet<string>): Map<string, { min: number; span: number }> {
  const out = new Map<string, { min: number; span: number }>();
  for (const k of used) {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const code of codes) {
      // An activity an occupation's tasks never touch is a share of 0, not a missing value.
      const v = raw.get(code)!.get(k) ?? (k.startsWith('activity:') ? 0 : undefined);
      if (v === undefined) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    out.set(k, { min, span: max > min ? max - min : 1 });
  }
  return out;
}

/** The weighted mean of a row's scaled descriptors; a descriptor the occupation lacks (only the job zone can) drops out. */
function rowScore(row: MapRow, values: Map<string, number>, scale: Map<string, { min: number; span: number }>): number {
  let sum = 0;
  let weights = 0;
  for (const term of row.terms) {
    const k = key(term.source, term.id);
    const v = values.get(k) ?? (term.source === 'activity' ? 0 : undefined);
    if (v === undefined) continue;
    const { min, span } = scale.get(k)!;
    sum += term.weight * ((v - min) / span);
    weights += term.weight;
  }
  return weights > 0 ? sum / weights : 0;
}

/** Min-max scaled to 0..1 over `values`, in their order; all equal gives 0 (no occupation calls on it more than another). */
function minMax(values: readonly number[]): number[] {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return values.map((v) => (max > min ? (v - min) / (max - min) : 0));
}

function missingFrom(code: string, seen: Map<string, Set<string>>): string[] {
  return [...seen].filter(([, found]) => !found.has(code)).map(([file]) => file.replace(/\.txt$/, ''));
}

export function deriveProfiles(
  files: ReleaseFiles,
  codes: readonly string[],
): { profiles: Map<string, ConstructProfile>; unprofiled: { code: string; reason: string }[] } {
  const used = new Set(careersMapV1.flatMap((row) => row.terms.map((term) => key(term.source, term.id))));
  const raw: Raw = new Map();
  const seen = new Map<string, Set<string>>();
  readRatings(files, used, raw, seen);
  readSkills(files, used, raw, seen);
  readActivities(files, used, raw, seen);
  readJobZones(files, raw);
  const unprofiled: { code: string; reason: string }[] = [];
  const profiled: string[] = [];
  for (const code of codes) {
    const missing = missingFrom(code, seen);
    if (missing.length === 0) profiled.push(code);
    else unprofiled.push({ code, reason: `missing from ${missing.join(', ')}` });
  }
  const scale = bounds(raw, profiled, used);
  const scores = careersMapV1.map((row) => minMax(profiled.map((code) => rowScore(row, raw.get(code)!, scale))));
  const rowOf = new Map(careersMapV1.map((row, r) => [row.construct, r]));
  const profiles = new Map<string, ConstructProfile>();
  profiled.forEach((code, i) => {
    // The constructs' own lists are alphabetical, so the profile's keys are too.
    const of = <K extends string>(names: readonly K[]) =>
      Object.fromEntries(names.map((name) => [name, round(scores[rowOf.get(name)!]![i]!)])) as Record<K, number>;
    profiles.set(code, { natures: of<Nature>(natures), intelligences: of<Intelligence>(intelligences) });
  });
  return { profiles, unprofiled };
}

/** Four decimals: what the API shows, and stable across platforms' float formatting. */
const round = (value: number): number => Math.round(value * 10_000) / 10_000;
