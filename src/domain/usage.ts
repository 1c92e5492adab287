import { parseInstant } from './instant.js';

/**
 * Usage metering: completed assessments per API key and per UTC day or month, from the usage read model
 * (projections/usage.ts keeps it from the log).
 *
 * A completion is a `ScoringCompleted` event, at its `data.completed_at`. It is billed to the key that
 * sent the batch that completed the assessment: the `metadata.key_id` of the last `ResponsesSubmitted`
 * on the same assessment stream before it. Only event types, stream names, metadata and the
 * non-personal `data.completed_at` are read, never `data.pii`, so the counts survive erasure and carry
 * no subject data. Every other event type (a later re-scoring included) counts nothing.
 */

export const granularities = ['day', 'month'] as const;
export type Granularity = (typeof granularities)[number];

export interface UsageRange {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  granularity: Granularity;
}

export interface UsageRow {
  /** key_…; null only for a completing batch recorded without a key id (never one sent through the API). */
  key_id: string | null;
  /** `2026-11-22` (day) or `2026-11` (month), in UTC. */
  period: string;
  completed_assessments: number;
}

export interface UsageReport {
  object: 'usage';
  livemode: boolean;
  from: string;
  to: string;
  granularity: Granularity;
  /** Only key/period pairs with completions; sorted by period, then key_id. */
  data: UsageRow[];
  total_completed_assessments: number;
}

/**
 * The usage read model tallies completions in buckets: UTC months, days, hours, minutes and seconds, each named
 * by the ISO prefix of its start (`2026-11`, `2026-11-22`, `2026-11-22T09`, `2026-11-22T09:30`,
 * `2026-11-22T09:30:15`). A range is read from the fewest of them: the whole units it covers, largest first, and
 * the seconds at its ends, whose tallies are also kept per instant. So a report costs one read per period (and a
 * bounded few at each end), whatever the size of the log. Only a second keeps instants: a bucket that grew with
 * every completion in it would be rewritten whole on each one, and a busy minute would make that quadratic.
 */

/** One key's completions in a bucket; in a second, at one instant (`at`, to the millisecond). */
export type UsageTally = { key_id: string | null; count: number; at?: string };
/** The completions of one bucket (`id`, its name), per key. */
export type UsageBucket = { id: string; tallies: UsageTally[] };

interface Unit {
  /** Of the ISO name of a bucket of this unit. */
  length: number;
  /** The start of the unit an instant (ms) falls in. */
  start(at: number): number;
  /** The start of the next unit, from the start of one. */
  next(start: number): number;
}

const fixed = (length: number, ms: number): Unit => ({ length, start: (at) => at - (at % ms), next: (start) => start + ms });
const month = (at: number, add: number) => {
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + add, 1);
};
/** Largest first; the last one keeps instants. */
const units: readonly Unit[] = [
  { length: 7, start: (at) => month(at, 0), next: (start) => month(start, 1) },
  fixed(10, 24 * 60 * 60 * 1000),
  fixed(13, 60 * 60 * 1000),
  fixed(16, 60 * 1000),
  fixed(19, 1000),
];
/** The second: the one unit whose tallies keep their instants. */
const FINEST = units.at(-1)!;

const bucketName = (at: number, unit: Unit) => new Date(at).toISOString().slice(0, unit.length);

/** The buckets a completion at `at` adds to: its month, day, hour, minute and second. */
export function bucketsOf(at: Date): string[] {
  return units.map((unit) => bucketName(at.getTime(), unit));
}

/** `bucket` (absent before its first completion) with one more completion at `at`, billed to `keyId`. */
export function tallied(bucket: UsageBucket | undefined, id: string, keyId: string | null, at: Date): UsageBucket {
  const instant = id.length === FINEST.length ? at.toISOString() : undefined;
  const tallies = bucket?.tallies ?? [];
  const same = tallies.findIndex((tally) => tally.key_id === keyId && tally.at === instant);
  return {
    id,
    tallies:
      same === -1
        ? [...tallies, { key_id: keyId, count: 1, ...(instant !== undefined && { at: instant }) }]
        : tallies.map((tally, i) => (i === same ? { ...tally, count: tally.count + 1 } : tally)),
  };
}

/** The buckets that cover the range: whole months (by month) or days, then hours, minutes, and seconds at its ends. */
export function usageBuckets(range: UsageRange): string[] {
  const names: string[] = [];
  cover(range.from.getTime(), range.to.getTime(), range.granularity === 'month' ? 0 : 1, names);
  return names;
}

function cover(from: number, to: number, level: number, names: string[]): void {
  const unit = units[level]!;
  if (unit === FINEST) {
    // Every second the range touches: the instants of one it covers in part are sorted out when read.
    for (let at = unit.start(from); at < to; at = unit.next(at)) names.push(bucketName(at, unit));
    return;
  }
  const first = unit.start(from) === from ? from : unit.next(unit.start(from));
  const end = unit.start(to);
  // No whole unit inside: the next unit down covers it all.
  if (first >= end) {
    cover(from, to, level + 1, names);
    return;
  }
  if (from < first) cover(from, first, level + 1, names);
  for (let at = first; at < end; at = unit.next(at)) names.push(bucketName(at, unit));
  if (end < to) cover(end, to, level + 1, names);
}

/** The report from the buckets `usageBuckets` named, as the read model holds them (those with no completion are absent). */
export function usageReport(range: UsageRange, buckets: Iterable<UsageBucket>, livemode: boolean): UsageReport {
  // Instants and the range's ends, all ISO to the millisecond in 2000..2099, compare as strings.
  const from = range.from.toISOString();
  const to = range.to.toISOString();
  const counts = new Map<string, UsageRow>();
  for (const bucket of buckets) {
    const period = bucket.id.slice(0, range.granularity === 'day' ? 10 : 7);
    for (const tally of bucket.tallies) {
      if (tally.at !== undefined && !(tally.at >= from && tally.at < to)) continue;
      const row = `${period}\u0000${tally.key_id ?? ''}`;
      const counted = counts.get(row);
      if (counted) counted.completed_assessments += tally.count;
      else counts.set(row, { key_id: tally.key_id, period, completed_assessments: tally.count });
    }
  }
  const data = [...counts.values()].sort((a, b) => compare(a.period, b.period) || compare(a.key_id ?? '', b.key_id ?? ''));
  return {
    object: 'usage',
    livemode,
    from,
    to,
    granularity: range.granularity,
    data,
    total_completed_assessments: data.reduce((sum, row) => sum + row.completed_assessments, 0),
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export interface UsageRangeInput {
  from?: string | undefined;
  to?: string | undefined;
  granularity?: string | undefined;
}

export interface UsageRangeError {
  field: 'from' | 'to' | 'granularity';
  message: string;
}

const FORMAT = 'must be a date YYYY-MM-DD or a UTC timestamp such as 2026-11-22T00:00:00Z, between 2000 and 2099';

/**
 * The range a caller asked for; defaults: `from` the start of the current UTC month, `to` now,
 * granularity `day`. All problems at once, each naming its field.
 */
export function parseUsageRange(input: UsageRangeInput, now: Date): { range: UsageRange } | { errors: UsageRangeError[] } {
  const errors: UsageRangeError[] = [];
  const instant = (field: 'from' | 'to', value: string | undefined, fallback: Date) => {
    if (value === undefined) return fallback;
    const at = parseInstant(value, { dates: true });
    if (at === undefined) errors.push({ field, message: `${field} ${FORMAT}; got ${JSON.stringify(value)}` });
    return at;
  };
  const from = instant('from', input.from, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
  const to = instant('to', input.to, now);
  const granularity = input.granularity ?? 'day';
  if (!(granularities as readonly string[]).includes(granularity)) {
    errors.push({ field: 'granularity', message: `granularity must be day or month; got ${JSON.stringify(granularity)}` });
  }
  if (from !== undefined && to !== undefined && from.getTime() >= to.getTime()) {
    errors.push({ field: 'to', message: `from (${from.toISOString()}) must be before to (${to.toISOString()})` });
  }
  if (errors.length > 0) return { errors };
  return { range: { from: from!, to: to!, granularity: granularity as Granularity } };
}
