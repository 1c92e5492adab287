import { describe, expect, it } from 'vitest';
import { afterHop, DELAY_LEVELS_MS, type Delayed, firstHop, nextHop } from '../../src/adapters/nats/delays.js';

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

  /** Follows a message from its first hop, each hop ending on time, until it is due: the hops' ends, in order. */
  function hopEnds(delayMs: number, start: number): { ends: number[]; levels: number[]; dueAt: number } {
    const { level, delayed: first } = firstHop({ id: 'm', payload: {}, deliveries: 1 }, start, delayMs);
    const ends = [first.hopUntil];
    const levels: number[] = [level];
    let delayed = first;
    for (;;) {
      const next = afterHop(delayed, delayed.hopUntil);
      if (next.kind === 'due') break;
      expect(next.next.hop).toBe(delayed.hop + 1);
      delayed = next.next;
      ends.push(delayed.hopUntil);
      levels.push(next.level);
    }
    return { ends, levels, dueAt: first.dueAt };
  }

  it('brings back a message deferred for less than the shortest level when it is due, not a second later', () => {
    const start = 1_000_000;
    const { ends, levels, dueAt } = hopEnds(300, start);
    expect(dueAt).toBe(start + 300);
    expect(levels).toEqual([1000]);
    expect(ends).toEqual([start + 300]);
  });

  it('brings back a message deferred for 1.5 s at 1.5 s, not at the end of a second 1 s hop', () => {
    const start = 1_000_000;
    const { ends, levels, dueAt } = hopEnds(1500, start);
    expect(dueAt).toBe(start + 1500);
    expect(levels).toEqual([1000, 1000]);
    expect(ends).toEqual([start + 1000, start + 1500]);
  });

  it('cuts a hop short only to end when its message is due, never before', () => {
    for (const delayMs of [1, 999, 1000, 1001, 4_999, 5_000, 5_001, 29_999, 31_000, 299_999, 3_600_000 + 7, 10 * 3_600_000 + 123]) {
      const start = 2_000_000;
      const { ends, dueAt } = hopEnds(delayMs, start);
      expect(ends.at(-1)).toBe(dueAt);
      expect(ends.every((end, index) => end <= dueAt && (index === 0 || end > ends[index - 1]!))).toBe(true);
    }
  });

  it('ends a hop that is forwarded late at the due time, when that comes before the level has passed', () => {
    const dueAt = 5_000_000;
    const delayed: Delayed = { id: 'm', payload: {}, deliveries: 1, dueAt, hop: 2, hopUntil: dueAt - 400 };
    // Forwarded 100 ms after its hop ended, 300 ms before it is due.
    const next = afterHop(delayed, dueAt - 300);
    expect(next).toEqual({ kind: 'hop', level: 1000, next: { ...delayed, hop: 3, hopUntil: dueAt } });
    expect(afterHop(next.kind === 'hop' ? next.next : delayed, dueAt)).toEqual({ kind: 'due' });
  });
});
