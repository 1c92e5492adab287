import type { FastifyReply } from 'fastify';
import { ProblemError } from './problem.js';
import { RateWindows } from './rate-windows.js';

export interface RateLimitSettings {
  perSecond: number;
  burst: number;
}

/**
 * Counts one request against its API key or, before a key is known, its client address; sets the RateLimit fields
 * on the reply and throws rate_limited beyond the quota. Synchronous: no I/O, no promise.
 */
export interface RateLimiter {
  key(reply: FastifyReply, keyId: string): void;
  address(reply: FastifyReply, address: string): void;
}

/** Names kept per kind: every key of a deployment, and a flood's addresses, neither evicting the other. */
const CAPACITY = 100_000;

/**
 * `burst` requests per window of burst/perSecond seconds (whole seconds, as the RateLimit fields count them), so
 * 100/s with a burst of 200 is 200 per 2 s (rate-windows.ts). Every counted answer carries the IETF draft's
 * RateLimit-Policy and RateLimit fields; beyond the quota, 429 with Retry-After, the seconds until the window ends.
 * `figures` gives the settings in force (the account's plan's): read on every request, so a plan change applies from
 * the next one; the counters start again when the figures change, as the windows they counted no longer exist.
 */
export function createRateLimiter(figures: () => RateLimitSettings): RateLimiter {
  let windows = windowsOf(figures());
  const count = (kind: 'keys' | 'addresses', reply: FastifyReply, name: string, whose: string) => {
    const { perSecond, burst } = figures();
    if (perSecond !== windows.perSecond || burst !== windows.burst) windows = windowsOf({ perSecond, burst });
    const { used, resetMs } = windows[kind].count(name);
    const resetSeconds = Math.ceil(resetMs / 1000);
    reply.header('ratelimit-policy', windows.policy);
    reply.header('ratelimit', `"default";r=${Math.max(0, burst - used)};t=${resetSeconds}`);
    if (used > burst) {
      throw new ProblemError(
        'rate_limited',
        `Too many requests: at most ${burst} per ${windows.seconds} s ${whose}. Retry after ${resetSeconds} s.`,
        {},
        { 'retry-after': String(resetSeconds) },
      );
    }
  };
  return {
    key: (reply, keyId) => count('keys', reply, keyId, 'for this API key'),
    address: (reply, address) => count('addresses', reply, address, 'from this address without a valid key'),
  };
}

/** The counters of one set of figures: per key and per address, neither evicting the other. */
function windowsOf({ perSecond, burst }: RateLimitSettings) {
  const seconds = Math.max(1, Math.round(burst / perSecond));
  return {
    perSecond,
    burst,
    seconds,
    policy: `"default";q=${burst};w=${seconds}`,
    keys: new RateWindows(seconds * 1000, CAPACITY),
    addresses: new RateWindows(seconds * 1000, CAPACITY),
  };
}
