import { describe, expect, it } from 'vitest';
import { DATE_ROUNDING_MS, ItemClock, MAX_RESPONSE_TIME_MS, ServerClock } from '../../packages/embed/src/timing.js';

/** A browser's two clocks, set by the test: the monotonic one (performance.now()) and the wall clock (Date.now()). */
function browserClocks(wall: number) {
  const clocks = { monotonic: 1_000, wall };
  const server = new ServerClock(
    () => clocks.monotonic,
    () => clocks.wall,
  );
  /** Time passes: both clocks move on. */
  const pass = (ms: number) => {
    clocks.monotonic += ms;
    clocks.wall += ms;
  };
  return { clocks, server, pass };
}

const SERVER_NOW = Date.parse('2026-03-01T10:00:00.000Z');
/** The Date header the server sends at `ms` (its resolution is the second). */
const dateHeader = (ms: number) => new Date(ms).toUTCString();

describe("the embed's estimate of the server's clock", () => {
  it("is the browser's own clock before any Date header was read (offset 0)", () => {
    const { server, clocks, pass } = browserClocks(SERVER_NOW + 3_600_000);
    expect(server.synchronised).toBe(false);
    const at = clocks.monotonic;
    pass(250);
    // Read later (as the outbox would), the instant is still the one of the choice.
    expect(server.at(at)).toBe(SERVER_NOW + 3_600_000);
    server.observe(null);
    server.observe('not a date');
    expect(server.synchronised).toBe(false);
  });

  it("takes the server's time from a Date header plus half a second (its 1-s resolution), whatever the browser's clock says", () => {
    // The browser's clock is an hour fast; the server's clock reads 10:00:00.700 as it writes its answer.
    const { server, clocks, pass } = browserClocks(SERVER_NOW + 3_600_000);
    server.observe(dateHeader(SERVER_NOW + 700));
    expect(server.synchronised).toBe(true);
    expect(server.at(clocks.monotonic)).toBe(SERVER_NOW + DATE_ROUNDING_MS);
    pass(12_345);
    expect(server.at(clocks.monotonic)).toBe(SERVER_NOW + DATE_ROUNDING_MS + 12_345);
    expect(new Date(server.at(clocks.monotonic)).toISOString()).toBe('2026-03-01T10:00:12.845Z');
  });

  it("is not moved by a change of the browser's clock: it runs on the monotonic clock", () => {
    const { server, clocks, pass } = browserClocks(SERVER_NOW - 86_400_000);
    server.observe(dateHeader(SERVER_NOW));
    pass(5_000);
    clocks.wall += 7_200_000; // the person (or NTP) sets the browser's clock two hours on
    expect(server.at(clocks.monotonic)).toBe(SERVER_NOW + DATE_ROUNDING_MS + 5_000);
  });

  it('takes a newer Date header that puts the server later (after a sleep the monotonic clock missed), never one that would move it back', () => {
    const { server, clocks, pass } = browserClocks(SERVER_NOW);
    server.observe(dateHeader(SERVER_NOW));
    const before = server.at(clocks.monotonic);
    // The machine slept an hour; the monotonic clock paused, the server's did not.
    clocks.wall += 3_600_000;
    pass(1_000);
    server.observe(dateHeader(SERVER_NOW + 3_601_000));
    expect(server.at(clocks.monotonic)).toBe(SERVER_NOW + 3_601_000 + DATE_ROUNDING_MS);
    expect(server.at(clocks.monotonic)).toBeGreaterThan(before);
    // A stale Date (a cached answer, a slow one) is older than the estimate: kept out, so answered_at never goes back.
    const held = server.at(clocks.monotonic);
    server.observe(dateHeader(SERVER_NOW + 3_590_000));
    expect(server.at(clocks.monotonic)).toBe(held);
    // Successive answers are in order.
    const times = [0, 400, 0, 1_000].map((ms) => {
      pass(ms);
      return server.at(clocks.monotonic);
    });
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});

describe("the embed's time per item", () => {
  it('is the whole milliseconds from when the item came into view to the choice', () => {
    const clock = new ItemClock(100);
    clock.visible('mn_001', true, 150.4);
    expect(clock.answered('mn_001', 2_400.7)).toBe(2_250);
  });

  it('counts an item in view from the answer to the item before it, not from when the page showed it', () => {
    const clock = new ItemClock(0);
    for (const itemId of ['mn_001', 'mn_002', 'mn_003']) clock.visible(itemId, true, 10);
    expect(clock.answered('mn_001', 3_010)).toBe(3_000);
    expect(clock.answered('mn_002', 7_010)).toBe(4_000);
    // Arrowing through mn_003's options: each press is an answer; the last one took the whole time from mn_002.
    expect(clock.answered('mn_003', 8_000)).toBe(990);
    expect(clock.answered('mn_003', 8_150)).toBe(1_140);
    expect(clock.answered('mn_003', 8_300)).toBe(1_290);
  });

  it('times a changed answer from when the item came back into view, or from the answer given meanwhile to another', () => {
    const clock = new ItemClock(0);
    clock.visible('mn_001', true, 0);
    clock.visible('mn_002', true, 0);
    expect(clock.answered('mn_001', 2_000)).toBe(2_000);
    expect(clock.answered('mn_002', 5_000)).toBe(3_000);
    // Back to mn_001, still in view: from the answer to mn_002.
    expect(clock.answered('mn_001', 6_500)).toBe(1_500);
    // mn_001 scrolled away and back, then changed again.
    clock.visible('mn_001', false, 7_000);
    clock.visible('mn_040', true, 7_000);
    expect(clock.answered('mn_040', 9_000)).toBe(2_000);
    clock.visible('mn_001', true, 20_000);
    expect(clock.answered('mn_001', 21_200)).toBe(1_200);
  });

  it('starts again for the items in view when the page is shown again after being hidden', () => {
    const clock = new ItemClock(0);
    clock.visible('mn_001', true, 0);
    clock.visible('mn_002', true, 0);
    clock.visible('mn_002', false, 500);
    clock.pageShown(600_000);
    expect(clock.answered('mn_001', 602_500)).toBe(2_500);
    // One out of view as the page came back: from the answer just given to another.
    expect(clock.answered('mn_002', 603_000)).toBe(500);
  });

  it('counts from the rendering before anything was reported in view, and stays within 0..3,600,000', () => {
    const clock = new ItemClock(1_000);
    expect(clock.answered('mn_001', 1_800)).toBe(800);
    expect(clock.answered('mn_002', 1_800 + 2 * MAX_RESPONSE_TIME_MS)).toBe(MAX_RESPONSE_TIME_MS);
    // A report that arrives a frame after the choice (the item scrolled into view by the focus): never negative.
    clock.visible('mn_003', true, 1_800 + 2 * MAX_RESPONSE_TIME_MS + 16);
    expect(clock.answered('mn_003', 1_800 + 2 * MAX_RESPONSE_TIME_MS + 10)).toBe(0);
  });
});
