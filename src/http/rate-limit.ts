import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from './problem.js';

export interface RateLimitSettings {
  perSecond: number;
  burst: number;
}

/** Counts one request against a bucket (an API key, or a client address before a key is known). */
export type RateLimiter = (request: FastifyRequest, reply: FastifyReply, bucket: string) => Promise<void>;

/** Buckets per request, handed to the plugin's key generator. */
const buckets = new WeakMap<FastifyRequest, string>();

/**
 * @fastify/rate-limit's counters in fixed windows: `burst` requests per window of burst/perSecond seconds
 * (whole seconds, as the RateLimit fields count them), so 100/s with a burst of 200 is 200 per 2 s. Every
 * counted answer carries the IETF draft's RateLimit-Policy and RateLimit fields; beyond the quota, 429.
 */
export async function createRateLimiter(app: FastifyInstance, { perSecond, burst }: RateLimitSettings): Promise<RateLimiter> {
  const windowSeconds = Math.max(1, Math.round(burst / perSecond));
  await app.register(rateLimit, {
    global: false,
    max: burst,
    timeWindow: windowSeconds * 1000,
    // Enough buckets that active keys are not evicted (and so reset) by a flood of addresses.
    cache: 100_000,
    keyGenerator: (request) => buckets.get(request) ?? request.ip,
  });
  const count = app.createRateLimit();
  const policy = `"default";q=${burst};w=${windowSeconds}`;
  return async (request, reply, bucket) => {
    buckets.set(request, bucket);
    const state = await count(request);
    if (state.isAllowed) return;
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"default";r=${state.remaining};t=${state.ttlInSeconds}`);
    if (state.isExceeded) {
      throw new ProblemError(
        'rate_limited',
        `Too many requests: at most ${burst} per ${windowSeconds} s ${bucket.startsWith('key:') ? 'for this API key' : 'from this address without a valid key'}. Retry after ${state.ttlInSeconds} s.`,
        {},
        { 'retry-after': String(state.ttlInSeconds) },
      );
    }
  };
}
