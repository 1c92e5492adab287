import { type Backoff, backoffDelay } from '../backoff.js';
import { pause } from '../pause.js';
import { WrongExpectedRevisionError } from '../ports/event-store.js';

/** Attempts of one command before a run of conflicts (concurrent appends to what it read) is given up on. */
export const MAX_ATTEMPTS = 20;

/**
 * The waits between them: writers that collided on one stream would collide again if they read and appended
 * again in step, so each waits a random part of a wait that doubles from a few milliseconds.
 */
const CONFLICT_BACKOFF: Backoff = { firstDelayMs: 5, maxDelayMs: 200, jitter: 1 };

/**
 * What an attempt answers when it changed what it read itself (it completed another's half-done write, or
 * released an erased subject's claim): it runs again on a fresh read, as after a conflict.
 */
export const READ_AGAIN = Symbol('read again');

/**
 * Runs `attempt` (read, decide, append at the revision read) until it answers, again after each conflict or
 * READ_AGAIN, at most MAX_ATTEMPTS times; the last attempt's conflict is thrown. The attempt must be safe to
 * run again: anything it did before its conflicting append either failed with it or is done once.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T | typeof READ_AGAIN>): Promise<T> {
  for (let run = 1; run < MAX_ATTEMPTS; run++) {
    try {
      const outcome = await attempt();
      if (outcome !== READ_AGAIN) return outcome;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
    await pause(backoffDelay(CONFLICT_BACKOFF, run));
  }
  const outcome = await attempt();
  if (outcome === READ_AGAIN) throw new Error(`what the command read kept changing; gave up after ${MAX_ATTEMPTS} attempts`);
  return outcome;
}
