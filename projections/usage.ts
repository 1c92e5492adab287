import { EARLIEST, LATEST } from '../src/domain/instant.js';
import { bucketsOf, tallied, type UsageBucket, type UsageRange, type UsageReport, usageBuckets, usageReport } from '../src/domain/usage.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document, ReadModelStore } from '../src/ports/read-models.js';
import type { Projection } from './projection.js';

/**
 * The usage read model (domain/usage.ts says what is billed): in one collection, the key of each open assessment
 * and the completions tallied per bucket (month, day, hour, minute). Event types, stream names, metadata and
 * `completed_at` only: no personal data, so erasure leaves it as it is.
 */

/** An assessment not completed yet: the key that sent its latest batch. Its id is the assessment's stream. */
export type UsageOpenAssessment = { id: string; key_id: string | null };

/** Both kinds of document in the collection, told apart by their ids (a stream name, or a bucket's ISO name). */
export type UsageDocument = UsageOpenAssessment | UsageBucket;

const USAGE = 'usage';

export const usageProjection: Projection = {
  name: USAGE,
  collection: USAGE,
  canHandle: ['ResponsesSubmitted', 'ScoringCompleted'],
  documentId: (event) => event.streamName,
  // An assessment completes once: its document goes with its completion, and nothing later on its stream is billed.
  evolve: (_current, event): UsageOpenAssessment | null =>
    event.type === 'ResponsesSubmitted' ? { id: event.streamName, key_id: event.metadata.key_id ?? null } : null,
  alsoChanges(own, event) {
    if (event.type !== 'ScoringCompleted') return [];
    const at = completedAt(event);
    // A completion outside the years a range can name is never reported.
    if (at === undefined || at < EARLIEST || at >= LATEST) return [];
    const keyId = typeof own?.key_id === 'string' ? own.key_id : null;
    return bucketsOf(at).map((id) => ({ id, evolve: (current) => tallied(asBucket(current), id, keyId, at) }));
  },
};

function completedAt(event: RecordedEvent): Date | undefined {
  const completedAt = (event.data as { completed_at?: unknown }).completed_at;
  const at = typeof completedAt === 'string' ? Date.parse(completedAt) : Number.NaN;
  return Number.isNaN(at) ? undefined : new Date(at);
}

/** Bucket ids name buckets only: the one cast from the untyped read-model document. */
const asBucket = (doc: Document | undefined) => doc as UsageBucket | undefined;

/** Ids per read: bounded, for a range of many periods (a century is 36,525 days). */
const READ_CHUNK = 1000;

/** The usage of `range`, from the buckets that cover it: one read per thousand periods, never the log. */
export async function readUsage(readModels: Pick<ReadModelStore, 'getMany'>, range: UsageRange, livemode: boolean): Promise<UsageReport> {
  const names = usageBuckets(range);
  const buckets: UsageBucket[] = [];
  for (let i = 0; i < names.length; i += READ_CHUNK) {
    const found = await readModels.getMany(USAGE, names.slice(i, i + READ_CHUNK));
    for (const { doc } of found.values()) if (doc !== undefined) buckets.push(asBucket(doc)!);
  }
  return usageReport(range, buckets, livemode);
}
