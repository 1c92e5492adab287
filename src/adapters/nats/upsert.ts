import { type Backoff, backoffDelay } from '../../support/backoff.js';
import { pause } from '../../support/pause.js';

/** Whether JetStream said the stream or consumer asked about does not exist. */
export function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

/** Attempts at adding a stream or consumer that another replica may be adding at the same moment. */
const UPSERT_ATTEMPTS = 5;

/** Replicas that start together collide together: each looks again after a doubling wait, up to half of it cut at random. */
const UPSERT_BACKOFF: Backoff = { firstDelayMs: 50, maxDelayMs: 400, jitter: 0.5 };

/**
 * Updates what `look` finds, or adds it. Another replica starting at the same moment may be adding it
 * between our look and our add; the server then refuses ours ("subjects overlap with an existing stream",
 * while the other's is still being made), so we look again, a little later each time (UPSERT_BACKOFF).
 */
export async function upsert(look: () => Promise<unknown>, update: () => Promise<unknown>, add: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await look();
      await update();
      return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    try {
      await add();
      return;
    } catch (error) {
      if (attempt === UPSERT_ATTEMPTS) throw error;
      await pause(backoffDelay(UPSERT_BACKOFF, attempt));
    }
  }
}
