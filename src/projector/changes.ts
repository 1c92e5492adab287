/** Wakes everyone waiting for the projector to change: a page read, a lane moved, a stop. */
export class Changes {
  private waiters: (() => void)[] = [];

  /** Resolves on the next change, or after `timeoutMs` if given. */
  wait(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
