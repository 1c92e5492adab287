/** Polls until `probe` returns a value, for outcomes that arrive asynchronously (scoring). Fails after `ms`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing arrived within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Polls `count` until it reaches `target`, for long work whose pace depends on the machine: it fails only when
 * the count stops moving for `stallMs` (a stuck pipeline), never because a busy machine is slow.
 */
export async function untilReached(count: () => Promise<number>, target: number, stallMs = 60_000): Promise<void> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const now = await count();
    if (now >= target) return;
    if (now !== last) {
      last = now;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > stallMs) {
      throw new Error(`stuck at ${now} of ${target} for ${stallMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
