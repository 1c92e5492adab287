// A wait that counts down in whole seconds. The visible "Retrying in N s…" and the retry itself run on this
// one chain of timers, so the screen can never say "1 s" after the retry went, nor the retry go early.

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/**
 * Waits `ms`: calls `tick` with the whole seconds left at once and at each whole second, then `tick(0)` and
 * `done`. Nothing runs synchronously but the first tick. Returns a function that cancels the wait.
 */
export function countdown(timers: Timers, ms: number, tick: (seconds: number) => void, done: () => void): () => void {
  let left = Math.max(0, ms);
  let handle: unknown = null;
  const step = () => {
    if (left === 0) {
      handle = null;
      tick(0);
      done();
      return;
    }
    tick(Math.ceil(left / 1000));
    // Down to a whole second first, then a second at a time.
    const wait = left % 1000 || 1000;
    left -= wait;
    handle = timers.set(step, wait);
  };
  if (left === 0) handle = timers.set(step, 0);
  else step();
  return () => {
    if (handle !== null) timers.clear(handle);
    handle = null;
  };
}
