import { describe, expect, it } from 'vitest';
import { DELAY_LEVELS_MS, type Delayed, afterHop, nextHop } from '../../src/adapters/nats/delays.js';

describe('NATS delay levels', () => {
  it('takes the longest level that does not overshoot, the shortest for less than it', () => {
    expect(nextHop(10 * 3_600_000)).toBe(10_800_000);
    expect(nextHop(300_000)).toBe(300_000);
    expect(nextHop(299_999)).toBe(30_000);
    expect(nextHop(1500)).toBe(1000);
    expect(nextHop(200)).toBe(1000);
  });

  it('brings a message back to its topic once due, after a few hops for a ten-hour wait', () => {
    const start = 1_000_000;
    const dueAt = start + 10 * 3_600_000;
    let delayed: Delayed = { id: 'm', payload: {}, deliveries: 1, dueAt, hop: 0, hopUntil: start + nextHop(dueAt - start) };
    let hops = 1;
    for (;;) {
      const next = afterHop(delayed, delayed.hopUntil);
      if (next.kind === 'due') break;
      expect(DELAY_LEVELS_MS).toContain(next.level);
      expect(next.next.hop).toBe(delayed.hop + 1);
      delayed = next.next;
      hops += 1;
    }
    // Never early, and on time here since every hop ended exactly when it was due to.
    expect(delayed.hopUntil).toBe(dueAt);
    expect(hops).toBeLessThanOrEqual(12);
  });
});
