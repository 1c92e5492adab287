import { CancelledError, DeadlineExceededError, NotLeaderError, TimeoutError, UnavailableError } from '@eventstore/db-client';
import { pause } from '../../pause.js';

/** How an append whose outcome is unknown is sent again: at most `attempts` sends, waits doubling from `firstDelayMs` up to `maxDelayMs`. */
export interface AppendRetryPolicy {
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

/** Four sends over about 1.4 s of waits (200, 400, 800 ms), each send bounded by the client's deadline (10 s by default). */
export const APPEND_RETRY: AppendRetryPolicy = { attempts: 4, firstDelayMs: 200, maxDelayMs: 2000 };

/**
 * Failures that leave an append unknown or undone, and that a resend may get past: the reply was lost (the
 * deadline passed, the connection dropped: UNAVAILABLE), the server gave up committing in time (ABORTED),
 * cancelled the call, or is no longer the leader (the client reconnects to the new one). Anything else
 * (a conflict, access denied, a bad request) would fail again the same way.
 */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof CancelledError ||
    error instanceof NotLeaderError
  );
}

/** The wait before send number `attempt + 1`, after `attempt` sends failed. */
export function retryDelay(policy: AppendRetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1));
}

/**
 * Sends `request` until it is answered, resending the very same request (the same event ids and the same
 * expected revision) after a transient failure. EventStoreDB answers a resend of events it already committed
 * at that revision as a success and stores nothing twice, so a lost reply neither fails a write that landed
 * nor writes it twice. Answers the result and how many sends it took.
 */
export async function sendWithRetry<Request, Result>(
  send: (request: Request) => Promise<Result>,
  request: Request,
  policy: AppendRetryPolicy = APPEND_RETRY,
  wait: (ms: number) => Promise<void> = pause,
): Promise<{ result: Result; attempts: number }> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { result: await send(request), attempts: attempt };
    } catch (error) {
      if (attempt >= policy.attempts || !isTransient(error)) throw error;
      await wait(retryDelay(policy, attempt));
    }
  }
}
