/** How hard the client retries one call; every retry of a call sends the same request, Idempotency-Key included. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  maxRetries?: number;
  /** The first back-off (default 500 ms), doubled on each retry, with jitter. */
  baseDelayMs?: number;
  /** No wait is longer (default 20 s): an answer whose Retry-After asks for more is returned as it is. */
  maxDelayMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

/**
 * Worth sending again: rate limited (429), our fault or unavailable (5xx), and the 409 that says the same
 * Idempotency-Key is still running (the only 409 with Retry-After). Anything else would only fail again.
 */
function retryable(response: Response): boolean {
  return response.status === 429 || response.status >= 500 || (response.status === 409 && response.headers.has('retry-after'));
}

/** Retry-After in milliseconds, given as seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential back-off with jitter (half to all of base·2^retry), so that many clients do not retry in step. */
function backoffMs(retry: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** retry);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `fetch`, retried on network errors and on retryable answers, honouring Retry-After, at most `maxRetries`
 * times. The caller's abort is never retried. Each attempt sends a clone, so the body goes out every time.
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions = {}, wait: (ms: number) => Promise<void> = sleep): Fetch {
  const { maxRetries = 3, baseDelayMs = 500, maxDelayMs = 20_000 } = options;
  return async (request) => {
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        if (retry >= maxRetries || request.signal.aborted) throw error;
        await wait(backoffMs(retry, baseDelayMs, maxDelayMs));
        continue;
      }
      if (retry >= maxRetries || !retryable(response)) return response;
      const delay = retryAfterMs(response) ?? backoffMs(retry, baseDelayMs, maxDelayMs);
      if (delay > maxDelayMs) return response;
      // The answer is dropped: release its connection.
      await response.body?.cancel();
      await wait(delay);
    }
  };
}
