import { describe, expect, it } from 'vitest';
import { countdown, type Timers } from '../../packages/embed/src/countdown.js';

/** Timers that run when the test says, recording each wait. */
function fakeTimers() {
  const pending: { callback: () => void; ms: number; cleared: boolean }[] = [];
  const timers: Timers = {
    set: (callback, ms) => pending.push({ callback, ms, cleared: false }) - 1,
    clear: (handle) => {
      const timer = pending[handle as number];
      if (timer) timer.cleared = true;
    },
  };
  const runNext = () => {
    const timer = pending.find((candidate) => !candidate.cleared);
    if (!timer) return false;
    timer.cleared = true;
    timer.callback();
    return true;
  };
  return { timers, pending, runNext };
}

describe('the retry countdown', () => {
  it('says the whole seconds left at once and at each whole second, then 0, then runs the retry: one chain of timers', () => {
    const { timers, pending, runNext } = fakeTimers();
    const seen: string[] = [];
    countdown(
      timers,
      2500,
      (seconds) => seen.push(`${seconds} s`),
      () => seen.push('retry'),
    );
    expect(seen).toEqual(['3 s']);
    while (runNext());
    expect(seen).toEqual(['3 s', '2 s', '1 s', '0 s', 'retry']);
    // Half a second to the next whole second, then a second at a time: 2.5 s in all.
    expect(pending.map((timer) => timer.ms)).toEqual([500, 1000, 1000]);
  });

  it('never runs the retry synchronously, not even after no wait at all', () => {
    const { timers, pending, runNext } = fakeTimers();
    const seen: string[] = [];
    countdown(
      timers,
      0,
      (seconds) => seen.push(`${seconds} s`),
      () => seen.push('retry'),
    );
    expect(seen).toEqual([]);
    expect(pending.map((timer) => timer.ms)).toEqual([0]);
    runNext();
    expect(seen).toEqual(['0 s', 'retry']);
  });

  it('stops for good when cancelled: no more ticks, no retry', () => {
    const { timers, runNext } = fakeTimers();
    const seen: string[] = [];
    const cancel = countdown(
      timers,
      3000,
      (seconds) => seen.push(`${seconds} s`),
      () => seen.push('retry'),
    );
    runNext();
    cancel();
    expect(runNext()).toBe(false);
    expect(seen).toEqual(['3 s', '2 s']);
  });
});
