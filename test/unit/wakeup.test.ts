import { describe, expect, it } from 'vitest';
import { pause } from '../../src/support/pause.js';
import { Wakeup } from '../../src/support/wakeup.js';

/** Whether `promise` has settled once the tasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('Wakeup', () => {
  it('wakes every waiter of now, and only them', async () => {
    const wakeup = new Wakeup();
    const [first, second] = [wakeup.wait(), wakeup.wait(60_000)];
    expect(await settled(first)).toBe(false);
    wakeup.wake();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    const later = wakeup.wait();
    expect(await settled(later)).toBe(false);
    wakeup.wake();
    await later;
  });

  it('resolves a waiter after its timeout with no wake', async () => {
    const wakeup = new Wakeup();
    await wakeup.wait(1);
  });

  it('resolves a waiter when its signal aborts, and leaves the others waiting', async () => {
    const wakeup = new Wakeup();
    const stop = new AbortController();
    const [stopped, other] = [wakeup.wait(60_000, stop.signal), wakeup.wait()];
    stop.abort();
    expect(await settled(stopped)).toBe(true);
    expect(await settled(other)).toBe(false);
    wakeup.wake();
    await other;
  });

  it('resolves at once a wait whose signal aborted before it began, with no timeout to end it', async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await settled(new Wakeup().wait(undefined, stop.signal))).toBe(true);
  });
});

describe('pause', () => {
  it('ends at once when its signal aborts, long before its time', async () => {
    const stop = new AbortController();
    const paused = pause(60_000, stop.signal);
    expect(await settled(paused)).toBe(false);
    stop.abort();
    expect(await settled(paused)).toBe(true);
  });
});
