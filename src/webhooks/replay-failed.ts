import type { Bus } from '../ports/bus.js';
import type { WebhookDelivery } from '../ports/collections.js';
import type { EventMetadata, EventStore } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { queueRedelivery } from './dispatcher.js';
import { attemptsSince } from './endpoint-attempts.js';

/** Events queued again by one replay at most: a larger backlog is replayed by asking again, from the last one's time. */
export const REPLAY_MAX = 1000;
const HOUR_MS = 60 * 60 * 1000;
/** Attempts of the endpoint read to find them, newest first. */
const SCAN_MAX = 20_000;

export interface Replay {
  /** Events queued again for the endpoint, oldest failure first. */
  queued: number;
  /** Failed events left over REPLAY_MAX: ask again with `since` just after the last one queued. */
  remaining: number;
  /** When the last event queued last failed; null when none was. */
  last_failed_at: string | null;
}

/**
 * Queues again, for one endpoint, every event whose latest attempt there failed (retries exhausted, or the endpoint
 * answered 410) at or after `since`: an event delivered since, by a retry or a redelivery, is left alone. Each goes
 * as a redelivery to that endpoint only (superseding any retry of it still scheduled there), through its delivery
 * slots, which send a few at a time: the replay is throttled as every delivery is, and never floods the receiver.
 */
export async function replayFailed(
  env: { readModels: ReadModelStore; events: EventStore; bus: Bus },
  endpointId: string,
  since: string,
  metadata: EventMetadata,
): Promise<Replay> {
  // An attempt is recorded when its POST ends, at most a delivery's time-out after it began: read on an hour past `since`.
  const readFrom = new Date(Date.parse(since) - HOUR_MS).toISOString();
  const latest = new Map<string, WebhookDelivery>();
  for (const attempt of await attemptsSince(env.readModels, endpointId, readFrom, SCAN_MAX)) {
    const known = latest.get(attempt.event_id);
    if (known === undefined || known.attempted_at < attempt.attempted_at) latest.set(attempt.event_id, attempt);
  }
  const failed = [...latest.values()]
    .filter((attempt) => (attempt.outcome === 'failed' || attempt.outcome === 'endpoint_gone') && attempt.attempted_at >= since)
    .sort((a, b) => (a.attempted_at < b.attempted_at ? -1 : 1));
  const due = failed.slice(0, REPLAY_MAX);
  for (const attempt of due) await queueRedelivery(env, attempt.event_id, endpointId, metadata);
  return { queued: due.length, remaining: failed.length - due.length, last_failed_at: due.at(-1)?.attempted_at ?? null };
}
