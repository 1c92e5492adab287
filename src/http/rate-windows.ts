/** What counting one request found. */
export interface Count {
  /** Requests counted in the current window, this one included. */
  used: number;
  /** Milliseconds until the window ends and the whole quota is back. */
  resetMs: number;
}

interface Window {
  used: number;
  /** performance.now() when the window began: at its first request. */
  start: number;
}

/**
 * Request counts by name in fixed windows, each starting at its name's first request and lasting `windowMs`:
 * a bucket of quota requests refilled whole when its window ends, which is what the RateLimit fields describe
 * (q requests per w seconds) and what @fastify/rate-limit counted before. Synchronous: a Map lookup and some
 * arithmetic. At most `capacity` names are kept: past it, those whose window ended go first (they count as
 * none), then the oldest.
 */
export class RateWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs: number,
    private readonly capacity: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  count(name: string): Count {
    const now = this.now();
    let window = this.windows.get(name);
    if (window === undefined) {
      if (this.windows.size >= this.capacity) this.makeRoom(now);
      window = { used: 0, start: now };
      this.windows.set(name, window);
    } else if (now - window.start >= this.windowMs) {
      window.used = 0;
      window.start = now;
    }
    window.used += 1;
    return { used: window.used, resetMs: this.windowMs - (now - window.start) };
  }

  /** Frees a tenth of the capacity at least, so that a flood of new names sweeps once per tenth of it, not on each. */
  private makeRoom(now: number): void {
    const target = Math.floor(this.capacity * 0.9);
    for (const [name, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(name);
    for (const name of this.windows.keys()) {
      if (this.windows.size <= target) break;
      this.windows.delete(name);
    }
  }
}
