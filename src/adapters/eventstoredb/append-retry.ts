import { CancelledError, DeadlineExceededError, NotLeaderError, TimeoutError, UnavailableError } from '@eventstore/db-client';
import { BackendTimeoutError, within } from '../../support/backend-timeout.js';
import { type Backoff, backoffDelay } from '../../support/backoff.js';
import { pause } from '../../support/pause.js';

/**
 * How an append whose outcome is unknown is sent again: for at most `totalMs` from the first send, each send
 * waiting at most `sendMs` for its answer, with waits between sends doubling from `firstDelayMs` up to `maxDelayMs`
 * (no jitter: one writer resends its own append, and the tests pin the waits).
 */
export interface AppendRetryPolicy extends Backoff {
  totalMs: number;
  sendMs: number;
}

/** The client's own deadline for one call, which a send keeps to while the append's time allows. */
export const SEND_MS = 10_000;

export function appendRetryPolicy(totalMs: number): AppendRetryPolicy {
  return { totalMs, sendMs: SEND_MS, firstDelayMs: 200, maxDelayMs: 2_000 };
}

/**
 * Failures that leave an append unknown or undone, and that a resend may get past: the reply was lost (the
 * deadline passed, no answer in the append's time, the connection dropped: UNAVAILABLE), the server gave up
 * committing in time (ABORTED), cancelled the call, or is no longer the leader (the client reconnects to the
 * new one). Anything else (a conflict, a deleted stream, access denied, a bad request) would fail again the same way.
 */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof BackendTimeoutError ||
    error instanceof CancelledError ||
    error instanceof NotLeaderError
  );
}

/** The wait before send number `attempt + 1`, after `attempt` sends failed. */
export function retryDelay(policy: AppendRetryPolicy, attempt: number): number {
  return backoffDelay(policy, attempt);
}

/** Time as the retries see it: a clock and a wait (a test passes its own). */
export interface RetryClock {
  now(): number;
  wait(ms: number): Promise<void>;
}

const realClock: RetryClock = { now: () => performance.now(), wait: (ms) => pause(ms) };

/**
 * Sends `request` until it is answered, resending the very same request (the same event ids and the same
 * expected revision) after a transient failure. EventStoreDB answers a resend of events it already committed
 * at that revision as a success and stores nothing twice, so a lost reply neither fails a write that landed
 * nor writes it twice. Each send gets as its deadline (ms) the lesser of `sendMs` and the time left, and is cut
 * off when the time is up (the batch-append call keeps no deadline of its own on the client); no resend starts
 * unless time is left after its wait. So an append answers, or throws its last failure, within `totalMs`.
 * Answers the result and how many sends it took.
 */
export async function sendWithRetry<Request, Result>(
  send: (request: Request, deadlineMs: number) => Promise<Result>,
  request: Request,
  policy: AppendRetryPolicy,
  clock: RetryClock = realClock,
): Promise<{ result: Result; attempts: number }> {
  const started = clock.now();
  const left = () => policy.totalMs - (clock.now() - started);
  for (let attempt = 1; ; attempt += 1) {
    const time = Math.floor(left());
    try {
      return { result: await within(time, send(request, Math.min(policy.sendMs, time))), attempts: attempt };
    } catch (error) {
      const delay = retryDelay(policy, attempt);
      if (!isTransient(error) || left() <= delay) throw error;
      await clock.wait(delay);
    }
  }
}
