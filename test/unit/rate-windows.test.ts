import { describe, expect, it } from 'vitest';
import { RateWindows } from '../../src/http/rate-windows.js';

describe('request counts in fixed windows', () => {
  it('counts per name from its first request, and starts again once the window has ended', () => {
    let now = 1_000;
    const windows = new RateWindows(2_000, 10, () => now);
    expect(windows.count('a')).toEqual({ used: 1, resetMs: 2_000 });
    now += 500;
    expect(windows.count('a')).toEqual({ used: 2, resetMs: 1_500 });
    expect(windows.count('b')).toEqual({ used: 1, resetMs: 2_000 });
    now += 1_500;
    expect(windows.count('a')).toEqual({ used: 1, resetMs: 2_000 });
  });

  it('keeps at most its capacity: past it, ended windows go first, then the oldest names', () => {
    let now = 0;
    const windows = new RateWindows(1_000, 10, () => now);
    windows.count('ended');
    now = 1_500;
    windows.count('live');
    windows.count('live');
    for (let i = 0; i < 8; i += 1) windows.count(`other-${i}`);
    // Full: a new name makes room by dropping the ended window, and 'live' keeps its count.
    windows.count('new');
    expect(windows.count('live').used).toBe(3);
    // Full again with no ended window: the oldest name goes, and counts again from its next request.
    windows.count('newer');
    expect(windows.count('live').used).toBe(1);
  });
});
