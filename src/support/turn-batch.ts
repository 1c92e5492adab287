/**
 * What arrives during one turn of the event loop, handed over as one batch early in the next (setImmediate,
 * after the I/O callbacks of this turn have run), or at once by `flush()`. Callers from several sockets land in
 * one batch, so work that costs per batch (a COMMIT and its fsync, a projection's page) is paid once for all.
 */
export class TurnBatch<T> {
  private items: T[] = [];
  private due: NodeJS.Immediate | undefined;

  constructor(private readonly handle: (batch: T[]) => void) {}

  /** Items waiting for the next batch. */
  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    this.items.push(item);
    this.due ??= setImmediate(() => this.flush());
  }

  /** Hands over what is waiting now (nothing when empty); what is added after goes in the next batch. */
  flush(): void {
    clearImmediate(this.due);
    this.due = undefined;
    if (this.items.length === 0) return;
    const batch = this.items;
    this.items = [];
    this.handle(batch);
  }
}
