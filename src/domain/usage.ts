import { compareCodeUnits as compare } from '../support/code-units.js';
import { parseInstant } from './instant.js';

/**
 * Usage metering: completed assessments (and, from v1.1, completed situational assessments) per API key and per UTC
 * day or month, from the usage read model (projections/usage.ts keeps it from the log).
 *
 * A completion is a `ScoringCompleted` event, at its `data.completed_at`. It is billed to the key that
 * sent the batch that completed the assessment: the `metadata.key_id` of the last `ResponsesSubmitted`
 * on the same assessment stream before it. Only event types, stream names, metadata and the
 * non-personal `data.completed_at` are read, never `data.pii`, so the counts survive erasure and carry
 * no subject data. Every other event type (a later re-scoring included) counts nothing.
 *
 * A completed situational assessment is a `SituationalAssessmentCompleted` with status `completed` (a failed one,
 * `situation_unclear`, is not billed), billed to the key that sent its request, counted apart.
 */

/** What is metered: each counted in counters of its own. */
export const meteredItems = ['completed_assessments', 'completed_situational_assessments'] as const;
export type MeteredItem = (typeof meteredItems)[number];

/** The counter of `item` for one unit: assessments' keep the names they had before situational assessments came. */
export const counterName = (item: MeteredItem, counter: UsageCounter): string =>
  item === 'completed_assessments' ? counter : `situational_${counter}`;

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
  completed_situational_assessments: number;
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
  total_completed_situational_assessments: number;
}

/**
 * The usage read model counts completions per key in counters of five sizes: UTC months, days, hours, minutes and
 * instants (to the millisecond), each row named by the ISO prefix of its period (`2026-11`, `2026-11-22`,
 * `2026-11-22T09`, `2026-11-22T09:30`, `2026-11-22T09:30:15.123`). A completion adds one to a row of each; a
 * report sums the rows of a few contiguous spans: the whole units the range covers, largest first, and the
 * instants at its ends (within a minute). So a report reads a bounded number of spans whatever the size of the
 * log, a range to the millisecond is exact, and no row grows with the completions it counts.
 */

/** The counters, largest first; the last one counts per instant. */
export const usageCounters = ['month', 'day', 'hour', 'minute', 'instant'] as const;
export type UsageCounter = (typeof usageCounters)[number];

/** One completion to count: in `counter` (counterName's), the row of `period` and `key` (the key id, '' for none). */
export interface UsageCount {
  counter: string;
  period: string;
  key: string;
}

/** The rows of one counter whose periods lie in [from, to): names of the same length compare as strings. */
export interface UsageSpan {
  counter: UsageCounter;
  from: string;
  to: string;
}

/** A counter row as read: the completions of `item` billed to `key` ('' for none) in `period`. */
export interface UsageCountRow {
  item: MeteredItem;
  period: string;
  key: string;
  n: number;
}

interface Unit {
  counter: UsageCounter;
  /** Of the ISO name of a period of this unit. */
  length: number;
  /** The start of the unit an instant (ms) falls in. */
  start(at: number): number;
  /** The start of the next unit, from the start of one. */
  next(start: number): number;
}

const fixed = (counter: UsageCounter, length: number, ms: number): Unit => ({
  counter,
  length,
  start: (at) => at - (at % ms),
  next: (start) => start + ms,
});
const month = (at: number, add: number) => {
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + add, 1);
};
/** Largest first; the last one is the instant. */
const units: readonly Unit[] = [
  { counter: 'month', length: 7, start: (at) => month(at, 0), next: (start) => month(start, 1) },
  fixed('day', 10, 24 * 60 * 60 * 1000),
  fixed('hour', 13, 60 * 60 * 1000),
  fixed('minute', 16, 60 * 1000),
  fixed('instant', 23, 1),
];
const INSTANT = units.at(-1)!;

const periodName = (at: number, unit: Unit) => new Date(at).toISOString().slice(0, unit.length);

/** The rows a completion of `item` at `at`, billed to `keyId`, adds one to: its month, day, hour, minute and instant. */
export function countsOf(at: Date, keyId: string | null, item: MeteredItem = 'completed_assessments'): UsageCount[] {
  return units.map((unit) => ({ counter: counterName(item, unit.counter), period: periodName(at.getTime(), unit), key: keyId ?? '' }));
}

/** The spans that cover the range: whole months (by month) or days, then hours, minutes, and the instants at its ends. */
export function usageSpans(range: UsageRange): UsageSpan[] {
  const spans: UsageSpan[] = [];
  cover(range.from.getTime(), range.to.getTime(), range.granularity === 'month' ? 0 : 1, spans);
  return spans;
}

function cover(from: number, to: number, level: number, spans: UsageSpan[]): void {
  const unit = units[level]!;
  const span = (start: number, end: number) =>
    spans.push({ counter: unit.counter, from: periodName(start, unit), to: periodName(end, unit) });
  if (unit === INSTANT) {
    span(from, to);
    return;
  }
  const first = unit.start(from) === from ? from : unit.next(unit.start(from));
  const end = unit.start(to);
  // No whole unit inside: the next unit down covers it all.
  if (first >= end) {
    cover(from, to, level + 1, spans);
    return;
  }
  if (from < first) cover(from, first, level + 1, spans);
  span(first, end);
  if (end < to) cover(end, to, level + 1, spans);
}

/** The report from the rows of the spans `usageSpans` named, as the read model holds them (only rows with completions). */
export function usageReport(range: UsageRange, rows: Iterable<UsageCountRow>, livemode: boolean): UsageReport {
  const counts = new Map<string, UsageRow>();
  for (const { item, period: name, key, n } of rows) {
    const period = name.slice(0, range.granularity === 'day' ? 10 : 7);
    const row = `${period}\u0000${key}`;
    let counted = counts.get(row);
    if (counted === undefined) {
      counted = { key_id: key === '' ? null : key, period, completed_assessments: 0, completed_situational_assessments: 0 };
      counts.set(row, counted);
    }
    counted[item] += n;
  }
  const data = [...counts.values()].sort((a, b) => compare(a.period, b.period) || compare(a.key_id ?? '', b.key_id ?? ''));
  return {
    object: 'usage',
    livemode,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    granularity: range.granularity,
    data,
    total_completed_assessments: data.reduce((sum, row) => sum + row.completed_assessments, 0),
    total_completed_situational_assessments: data.reduce((sum, row) => sum + row.completed_situational_assessments, 0),
  };
}

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
