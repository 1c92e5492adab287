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
 */
export function createRateLimiter({ perSecond, burst }: RateLimitSettings): RateLimiter {
  const windowSeconds = Math.max(1, Math.round(burst / perSecond));
  const policy = `"default";q=${burst};w=${windowSeconds}`;
  const count = (windows: RateWindows, reply: FastifyReply, name: string, whose: string) => {
    const { used, resetMs } = windows.count(name);
    const resetSeconds = Math.ceil(resetMs / 1000);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"default";r=${Math.max(0, burst - used)};t=${resetSeconds}`);
    if (used > burst) {
      throw new ProblemError(
        'rate_limited',
        `Too many requests: at most ${burst} per ${windowSeconds} s ${whose}. Retry after ${resetSeconds} s.`,
        {},
        { 'retry-after': String(resetSeconds) },
      );
    }
  };
  const keys = new RateWindows(windowSeconds * 1000, CAPACITY);
  const addresses = new RateWindows(windowSeconds * 1000, CAPACITY);
  return {
    key: (reply, keyId) => count(keys, reply, keyId, 'for this API key'),
    address: (reply, address) => count(addresses, reply, address, 'from this address without a valid key'),
  };
}
