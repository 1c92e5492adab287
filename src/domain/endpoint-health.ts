import type { DeliveryOutcome } from './webhook-delivery.js';

/** What an endpoint's health is read from: its attempts' outcomes, times and durations. */
export interface AttemptRecord {
  outcome: DeliveryOutcome;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
}

export interface EndpointHealth {
  /** HTTP attempts in the window (a cancelled delivery sent nothing: not counted). */
  attempts: number;
  /** The share of them the endpoint answered with a 2xx, 0..1; null without any. */
  successRate: number | null;
  /** The median time an attempt took, in ms; null without any. */
  medianMs: number | null;
  /** The latest attempt that failed, if any: when, and what it met. */
  lastError: { at: string; statusCode: number | null; error: string | null } | null;
}

export const HEALTH_WINDOW_MS = 24 * 60 * 60 * 1000;

/** How an endpoint fared over the day before `now`, as Svix shows it: success rate, median latency, last error. */
export function endpointHealth(records: readonly AttemptRecord[], now: Date): EndpointHealth {
  const since = now.getTime() - HEALTH_WINDOW_MS;
  const sent = records.filter((record) => record.outcome !== 'cancelled' && Date.parse(record.attempted_at) >= since);
  if (sent.length === 0) return { attempts: 0, successRate: null, medianMs: null, lastError: null };
  const durations = sent.map((record) => record.duration_ms).sort((a, b) => a - b);
  const middle = Math.floor(durations.length / 2);
  const medianMs = durations.length % 2 === 1 ? durations[middle]! : (durations[middle - 1]! + durations[middle]!) / 2;
  const failed = sent.filter((record) => record.outcome !== 'succeeded').sort((a, b) => (a.attempted_at < b.attempted_at ? 1 : -1))[0];
  return {
    attempts: sent.length,
    successRate: sent.filter((record) => record.outcome === 'succeeded').length / sent.length,
    medianMs,
    lastError: failed === undefined ? null : { at: failed.attempted_at, statusCode: failed.status_code, error: failed.error },
  };
}
