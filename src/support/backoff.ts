/**
 * The waits between retries of one thing: doubling from `firstDelayMs` up to `maxDelayMs`. With `jitter` (a
 * fraction, 0 to 1), each wait is shortened by up to that fraction at random, so that parties which failed
 * together (replicas losing one server, writers colliding on one stream) do not all retry together; the
 * figures stay upper bounds.
 */
export interface Backoff {
  firstDelayMs: number;
  maxDelayMs: number;
  jitter?: number;
}

/** Doublings past which every wait is at its cap: a long run of failures cannot overflow the formula. */
const MAX_DOUBLINGS = 30;

/** The wait (ms) before retry number `retry`: 1 for the retry after the first failure. */
export function backoffDelay(backoff: Backoff, retry: number, random: () => number = Math.random): number {
  const doublings = Math.min(Math.max(retry - 1, 0), MAX_DOUBLINGS);
  const delay = Math.min(backoff.maxDelayMs, backoff.firstDelayMs * 2 ** doublings);
  return backoff.jitter ? Math.round(delay * (1 - backoff.jitter * random())) : delay;
}
