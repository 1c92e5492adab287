import type { Environment } from '../domain/api-keys.js';
import type { AssessmentAbandoned, ResponsesSubmitted, ScoringCompleted } from '../domain/assessment.js';
import { EARLIEST, LATEST } from '../domain/instant.js';
import {
  type AppliedPlan,
  appliedPlan,
  monthBounds,
  monthOf,
  type PlanChoice,
  type QuotaFigures,
  quotaFigures,
  type RateLimitOverride,
} from '../domain/plans.js';
import type { SituationalAssessmentCompleted, SituationalAssessmentRequested } from '../domain/situational-assessment.js';
import {
  counterName,
  countsOf,
  type MeteredItem,
  meteredItems,
  type UsageCountRow,
  type UsageRange,
  type UsageReport,
  usageReport,
  usageSpans,
} from '../domain/usage.js';
import type { CollectionProjection } from '../ports/projection.js';

/**
 * The usage read model (domain/usage.ts says what is billed): in one collection, the key of each open assessment (and
 * pending situational assessment), and in its counters the completions per key and period (month, day, hour, minute,
 * instant). Event types, stream names, metadata and `completed_at` only: no personal data, so erasure leaves it as it is.
 */

const USAGE = 'usage';

type Metered =
  | ResponsesSubmitted
  | ScoringCompleted
  | AssessmentAbandoned
  | SituationalAssessmentRequested
  | SituationalAssessmentCompleted;

/** A completion's instant, unless it is outside the years a range can name (or not a time at all): never reported. */
function reportable(completedAt: string): Date | undefined {
  const at = new Date(Date.parse(completedAt));
  return Number.isNaN(at.getTime()) || at < EARLIEST || at >= LATEST ? undefined : at;
}

export const usageProjection: CollectionProjection<Metered, 'usage'> = {
  name: USAGE,
  collection: USAGE,
  canHandle: [
    'ResponsesSubmitted',
    'ScoringCompleted',
    'AssessmentAbandoned',
    'SituationalAssessmentRequested',
    'SituationalAssessmentCompleted',
  ],
  documentId: (event) => event.streamName,
  // An assessment completes once: its document goes with its completion, and nothing later on its stream is billed.
  // An abandoned one is never billed, so its document goes too. A situational assessment is billed to its request's key.
  evolve: (_current, event) =>
    event.type === 'ResponsesSubmitted' || event.type === 'SituationalAssessmentRequested'
      ? { id: event.streamName, key_id: event.metadata.key_id ?? null }
      : null,
  counts(own, event) {
    if (event.type === 'ScoringCompleted') {
      const at = reportable(event.data.completed_at);
      return at === undefined ? [] : countsOf(at, own?.key_id ?? null);
    }
    if (event.type === 'SituationalAssessmentCompleted' && event.data.status === 'completed') {
      const at = reportable(event.data.completed_at);
      return at === undefined ? [] : countsOf(at, own?.key_id ?? null, 'completed_situational_assessments');
    }
    return [];
  },
};

type CountReader = { counts(collection: 'usage', counter: string, from: string, to: string): Promise<Omit<UsageCountRow, 'item'>[]> };

/** The usage of `range`, from the counter rows of the few spans that cover it: never the log. */
export async function readUsage(readModels: CountReader, range: UsageRange, livemode: boolean): Promise<UsageReport> {
  const rows: UsageCountRow[] = [];
  const read = async (item: MeteredItem) => {
    for (const { counter, from, to } of usageSpans(range)) {
      for (const row of await readModels.counts(USAGE, counterName(item, counter), from, to)) rows.push({ ...row, item });
    }
  };
  for (const item of meteredItems) await read(item);
  return usageReport(range, rows, livemode);
}

/** The completed assessments of a UTC month (`2026-11`), every key's: one read of the month counter's rows. */
export async function completionsInMonth(readModels: CountReader, month: string): Promise<number> {
  const { to } = monthBounds(month);
  const rows = await readModels.counts(USAGE, counterName('completed_assessments', 'month'), month, to.toISOString().slice(0, 7));
  return rows.reduce((sum, row) => sum + row.n, 0);
}

/** Every row of a month's instant counters (to the millisecond), of each metered item: what a statement orders by time. */
export async function instantsOfMonth(readModels: CountReader, month: string): Promise<UsageCountRow[]> {
  const { from, to } = monthBounds(month);
  const rows: UsageCountRow[] = [];
  for (const item of meteredItems) {
    for (const row of await readModels.counts(
      USAGE,
      counterName(item, 'instant'),
      from.toISOString().slice(0, 23),
      to.toISOString().slice(0, 23),
    ))
      rows.push({ ...row, item });
  }
  return rows;
}

/** An environment's plan (as the account's plan applies to it) and its figures for the current UTC month. */
export async function planUsage(
  readModels: CountReader,
  environment: Environment,
  plan: { choice: PlanChoice; override: RateLimitOverride },
  now: Date,
): Promise<{ plan: AppliedPlan; quota: QuotaFigures }> {
  const applied = appliedPlan(plan.choice, environment, plan.override);
  const month = monthOf(now);
  return { plan: applied, quota: quotaFigures(applied, month, await completionsInMonth(readModels, month)) };
}
