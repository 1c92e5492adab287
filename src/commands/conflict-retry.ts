import { WrongExpectedRevisionError } from '../ports/event-store.js';
import { type Backoff, backoffDelay } from '../support/backoff.js';
import { pause } from '../support/pause.js';

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
 * A command gave up after MAX_ATTEMPTS conflicts. Not a conflict itself: a command that runs another inside its
 * attempt (creating a subject claims its external id) does not retry the whole attempt for it, so the bound
 * holds as written instead of multiplying.
 */
export class ConflictsPersistedError extends Error {
  override readonly name = 'ConflictsPersistedError';
}

/**
 * Runs `attempt` (read, decide, append at the revision read) until it answers, again after each conflict or
 * READ_AGAIN, at most MAX_ATTEMPTS times; then throws ConflictsPersistedError, with the last conflict as its
 * cause. The attempt must be safe to run again: anything it did before its conflicting append either failed
 * with it or is done once.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T | typeof READ_AGAIN>): Promise<T> {
  let conflict: WrongExpectedRevisionError | undefined;
  for (let run = 1; run <= MAX_ATTEMPTS; run++) {
    if (run > 1) await pause(backoffDelay(CONFLICT_BACKOFF, run - 1));
    try {
      const outcome = await attempt();
      if (outcome !== READ_AGAIN) return outcome;
      conflict = undefined;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      conflict = error;
    }
  }
  const what = conflict === undefined ? 'what the command read kept changing' : 'its appends kept conflicting';
  throw new ConflictsPersistedError(`${what}; gave up after ${MAX_ATTEMPTS} attempts`, { cause: conflict });
}
