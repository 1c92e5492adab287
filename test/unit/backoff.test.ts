import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/support/backoff.js';

describe('back-off', () => {
  it('doubles from the first delay up to the cap, however many retries', () => {
    const backoff = { firstDelayMs: 250, maxDelayMs: 5000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((retry) => backoffDelay(backoff, retry))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    expect(backoffDelay(backoff, 10_000)).toBe(5000);
  });

  it('shortens each wait by up to its jitter at random, never lengthening it', () => {
    const backoff = { firstDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.2 };
    expect(backoffDelay(backoff, 3, () => 0)).toBe(4000);
    expect(backoffDelay(backoff, 3, () => 0.5)).toBe(3600);
    expect(backoffDelay(backoff, 3, () => 0.999_999)).toBe(3200);
    expect(backoffDelay({ ...backoff, jitter: 1 }, 20, () => 0.25)).toBe(45_000);
  });
});
