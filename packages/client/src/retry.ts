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

/** An attempt that got no whole answer within `timeoutMs` (the caller's own abort is not one). */
export class NatureTimeoutError extends Error {
  override readonly name = 'NatureTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms.`);
  }
}

/**
 * One attempt, bounded by `timeoutMs` from sending to the last byte of the body: the body is read here, so a
 * server that stalls half-way through an answer times out too (API answers are small).
 */
async function attempt(fetch: Fetch, request: Request, timeoutMs: number): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(new Request(request.clone(), { signal: AbortSignal.any([request.signal, timeout]) }));
    const body = await response.arrayBuffer();
    // A Response of these statuses may not have a body, not even an empty one.
    return new Response([204, 205, 304].includes(response.status) ? null : body, response);
  } catch (error) {
    if (timeout.aborted && !request.signal.aborted) throw new NatureTimeoutError(timeoutMs);
    throw error;
  }
}

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

/** How long one attempt may take unless the client or the call says otherwise. */
export const defaultTimeoutMs = 30_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `fetch`, each attempt bounded by `timeoutMs`, retried on network errors, time-outs and retryable answers,
 * honouring Retry-After, at most `maxRetries` times. The caller's abort is never retried. Each attempt sends
 * a clone, so the body goes out every time.
 */
export function retryingFetch(
  fetch: Fetch,
  options: RetryOptions = {},
  timeoutMs = defaultTimeoutMs,
  wait: (ms: number) => Promise<void> = sleep,
): Fetch {
  const { maxRetries = 3, baseDelayMs = 500, maxDelayMs = 20_000 } = options;
  return async (request) => {
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await attempt(fetch, request, timeoutMs);
      } catch (error) {
        if (retry >= maxRetries || request.signal.aborted) throw error;
        await wait(backoffMs(retry, baseDelayMs, maxDelayMs));
        continue;
      }
      if (retry >= maxRetries || !retryable(response)) return response;
      const delay = retryAfterMs(response) ?? backoffMs(retry, baseDelayMs, maxDelayMs);
      if (delay > maxDelayMs) return response;
      await wait(delay);
    }
  };
}
