/**
 * Wakes everyone waiting for something to change: a waiter resolves on the next `wake()`, after `timeoutMs`
 * when given (a poll, for changes no local call announces), or when its signal aborts (at once when it has already).
 * Never rejects.
 */
export class Wakeup {
  private readonly waiters = new Set<() => void>();

  wait(timeoutMs?: number, signal?: AbortSignal): Promise<void> {
    // Aborted already: the abort event has fired and will not again, so nothing else would end this wait.
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Wakes the waiters of now; one that starts waiting after waits for the next. */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
