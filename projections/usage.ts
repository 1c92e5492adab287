import type { AssessmentAbandoned, ResponsesSubmitted, ScoringCompleted } from '../src/domain/assessment.js';
import { EARLIEST, LATEST } from '../src/domain/instant.js';
import { bucketsOf, tallied, type UsageBucket, type UsageRange, type UsageReport, usageBuckets, usageReport } from '../src/domain/usage.js';
import type { Collections } from '../src/ports/collections.js';
import type { CollectionProjection } from '../src/ports/projection.js';
import type { StoredVersion } from '../src/ports/read-models.js';

/**
 * The usage read model (domain/usage.ts says what is billed): in one collection, the key of each open assessment
 * and the completions tallied per bucket (month, day, hour, minute, second). Event types, stream names, metadata and
 * `completed_at` only: no personal data, so erasure leaves it as it is.
 */

const USAGE = 'usage';

const isBucket = (doc: Collections['usage'] | undefined): doc is UsageBucket => doc !== undefined && 'tallies' in doc;

export const usageProjection: CollectionProjection<ResponsesSubmitted | ScoringCompleted | AssessmentAbandoned, 'usage'> = {
  name: USAGE,
  collection: USAGE,
  canHandle: ['ResponsesSubmitted', 'ScoringCompleted', 'AssessmentAbandoned'],
  documentId: (event) => event.streamName,
  // An assessment completes once: its document goes with its completion, and nothing later on its stream is billed.
  // An abandoned one is never billed, so its document goes too.
  evolve: (_current, event) =>
    event.type === 'ResponsesSubmitted' ? { id: event.streamName, key_id: event.metadata.key_id ?? null } : null,
  alsoChanges(own, event) {
    if (event.type !== 'ScoringCompleted') return [];
    const at = new Date(Date.parse(event.data.completed_at));
    // A completion outside the years a range can name (or not a time at all) is never reported.
    if (Number.isNaN(at.getTime()) || at < EARLIEST || at >= LATEST) return [];
    const keyId = own !== undefined && !isBucket(own) ? own.key_id : null;
    return bucketsOf(at).map((id) => ({ id, evolve: (current) => tallied(isBucket(current) ? current : undefined, id, keyId, at) }));
  },
};

/** Ids per read: bounded, for a range of many periods (a century is 36,525 days). */
const READ_CHUNK = 1000;

/** The usage of `range`, from the buckets that cover it: one read per thousand periods, never the log. */
export async function readUsage(
  readModels: { getMany(collection: 'usage', ids: readonly string[]): Promise<Map<string, StoredVersion<Collections['usage']>>> },
  range: UsageRange,
  livemode: boolean,
): Promise<UsageReport> {
  const names = usageBuckets(range);
  const buckets: UsageBucket[] = [];
  for (let i = 0; i < names.length; i += READ_CHUNK) {
    const found = await readModels.getMany(USAGE, names.slice(i, i + READ_CHUNK));
    for (const { doc } of found.values()) if (isBucket(doc)) buckets.push(doc);
  }
  return usageReport(range, buckets, livemode);
}
