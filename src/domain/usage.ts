import type { EventStore, RecordedEvent } from '../ports/event-store.js';
import { parseInstant } from './instant.js';

/**
 * Usage metering: completed assessments per API key and per UTC day or month, straight from the log.
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

/** The UTC period an instant falls in. */
export function periodOf(at: Date, granularity: Granularity): string {
  return at.toISOString().slice(0, granularity === 'day' ? 10 : 7);
}

/**
 * A fold over the log: feed every event in log order (from the start: a completion in range may follow
 * a batch sent before `from`), then read the rows. Remembers one key id per assessment still open.
 */
export class UsageMeter {
  /** Stream name → key id of its latest batch, until the assessment completes. */
  private readonly lastBatchKey = new Map<string, string | null>();
  /** `period` + NUL + `key_id` → count. */
  private readonly counts = new Map<string, { key_id: string | null; period: string; count: number }>();
  private readonly fromMs: number;
  private readonly toMs: number;

  constructor(private readonly range: UsageRange) {
    this.fromMs = range.from.getTime();
    this.toMs = range.to.getTime();
  }

  add(event: RecordedEvent): void {
    if (event.type === 'ResponsesSubmitted') {
      this.lastBatchKey.set(event.streamName, event.metadata.key_id ?? null);
      return;
    }
    if (event.type !== 'ScoringCompleted') return;
    const keyId = this.lastBatchKey.get(event.streamName) ?? null;
    // An assessment completes once: nothing later on its stream is billed.
    this.lastBatchKey.delete(event.streamName);
    const completedAt = (event.data as { completed_at?: unknown }).completed_at;
    const at = typeof completedAt === 'string' ? Date.parse(completedAt) : Number.NaN;
    if (!(at >= this.fromMs && at < this.toMs)) return;
    const period = periodOf(new Date(at), this.range.granularity);
    const bucket = `${period}\u0000${keyId ?? ''}`;
    const row = this.counts.get(bucket);
    if (row) row.count += 1;
    else this.counts.set(bucket, { key_id: keyId, period, count: 1 });
  }

  rows(): UsageRow[] {
    return [...this.counts.values()]
      .sort((a, b) => compare(a.period, b.period) || compare(a.key_id ?? '', b.key_id ?? ''))
      .map(({ key_id, period, count }) => ({ key_id, period, completed_assessments: count }));
  }

  report(livemode: boolean): UsageReport {
    const data = this.rows();
    return {
      object: 'usage',
      livemode,
      from: this.range.from.toISOString(),
      to: this.range.to.toISOString(),
      granularity: this.range.granularity,
      data,
      total_completed_assessments: data.reduce((sum, row) => sum + row.completed_assessments, 0),
    };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const USAGE_PAGE_SIZE = 1000;

/** Reads the whole log in pages (never all at once) through the meter. */
export async function meterUsage(events: Pick<EventStore, 'readAll'>, range: UsageRange, livemode: boolean): Promise<UsageReport> {
  const meter = new UsageMeter(range);
  let after: bigint | undefined;
  for (;;) {
    const page = await events.readAll({ ...(after !== undefined && { after }), limit: USAGE_PAGE_SIZE });
    for (const event of page) meter.add(event);
    if (page.length < USAGE_PAGE_SIZE) return meter.report(livemode);
    after = page.at(-1)!.position;
  }
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
