import { describe, expect, it } from 'vitest';
import { LOOKBACK_MS, pastLookback, remember, unseen, watermark } from '../../src/cli/unseen-events.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, 0) + seconds * 1000).toISOString();
const event = (id: string, seconds: number) => ({ id, created_at: at(seconds) });

describe('which events a listener forwards', () => {
  it('forwards what it has not, oldest first, including an event that reached the list after a newer one', () => {
    const forwarded = [event('evt_b', 10)];
    // Newest first, as the list answers: evt_a (9 s) was listed only after evt_b was forwarded.
    const listed = [event('evt_c', 12), event('evt_b', 10), event('evt_a', 9)];
    expect(unseen(listed, forwarded).map((e) => e.id)).toEqual(['evt_a', 'evt_c']);
  });

  it('reads back as far as the look-back before the newest forwarded event, and no further', () => {
    const forwarded = [event('evt_b', 100)];
    expect(pastLookback(event('evt_old', 100 - LOOKBACK_MS / 1000 + 1), watermark(forwarded))).toBe(false);
    expect(pastLookback(event('evt_older', 100 - LOOKBACK_MS / 1000 - 1), watermark(forwarded))).toBe(true);
    expect(pastLookback(event('evt_any', 0), watermark([]))).toBe(false);
  });

  it('keeps only what is inside the look-back, so the state stays small', () => {
    let forwarded = remember([], event('evt_1', 0));
    forwarded = remember(forwarded, event('evt_2', 30));
    forwarded = remember(forwarded, event('evt_3', 90));
    expect(forwarded.map((e) => e.id)).toEqual(['evt_2', 'evt_3']);
  });
});
