import type { AssessmentAbandoned, ResponsesSubmitted, ScoringCompleted } from '../domain/assessment.js';
import { EARLIEST, LATEST } from '../domain/instant.js';
import { countsOf, type UsageCountRow, type UsageRange, type UsageReport, usageReport, usageSpans } from '../domain/usage.js';
import type { CollectionProjection } from '../ports/projection.js';

/**
 * The usage read model (domain/usage.ts says what is billed): in one collection, the key of each open assessment,
 * and in its counters the completions per key and period (month, day, hour, minute, instant). Event types, stream
 * names, metadata and `completed_at` only: no personal data, so erasure leaves it as it is.
 */

const USAGE = 'usage';

export const usageProjection: CollectionProjection<ResponsesSubmitted | ScoringCompleted | AssessmentAbandoned, 'usage'> = {
  name: USAGE,
  collection: USAGE,
  canHandle: ['ResponsesSubmitted', 'ScoringCompleted', 'AssessmentAbandoned'],
  documentId: (event) => event.streamName,
  // An assessment completes once: its document goes with its completion, and nothing later on its stream is billed.
  // An abandoned one is never billed, so its document goes too.
  evolve: (_current, event) =>
    event.type === 'ResponsesSubmitted' ? { id: event.streamName, key_id: event.metadata.key_id ?? null } : null,
  counts(own, event) {
    if (event.type !== 'ScoringCompleted') return [];
    const at = new Date(Date.parse(event.data.completed_at));
    // A completion outside the years a range can name (or not a time at all) is never reported.
    if (Number.isNaN(at.getTime()) || at < EARLIEST || at >= LATEST) return [];
    return countsOf(at, own?.key_id ?? null);
  },
};

/** The usage of `range`, from the counter rows of the few spans that cover it: never the log. */
export async function readUsage(
  readModels: { counts(collection: 'usage', counter: string, from: string, to: string): Promise<UsageCountRow[]> },
  range: UsageRange,
  livemode: boolean,
): Promise<UsageReport> {
  const rows: UsageCountRow[] = [];
  for (const { counter, from, to } of usageSpans(range)) rows.push(...(await readModels.counts(USAGE, counter, from, to)));
  return usageReport(range, rows, livemode);
}
