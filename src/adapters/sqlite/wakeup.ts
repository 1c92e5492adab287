/**
 * Local wake-ups for SQLite pollers: a waiter resolves on `wake()`, after `pollMs` (changes made by
 * another process, which no local call announces), or when the signal aborts.
 */
export class Wakeup {
  private readonly waiters = new Set<() => void>();

  wait(pollMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
