interface Lane {
  running: number;
  /** Tasks waiting for room, in arrival order (a Map keeps it), each told whether it starts or was withdrawn. */
  waiting: Map<number, (starts: boolean) => void>;
}

/**
 * POSTs under way at once per lane (one endpoint's), in the delivery thread: a lane runs at most `atOnce`, the
 * rest wait in order and start the moment one ends, without a round trip to the main thread. One still
 * waiting can be withdrawn (its dispatcher stopping), and withdraws itself after waiting `waitAtMostMs`; it
 * then never starts.
 */
export class PostLanes {
  private readonly lanes = new Map<string, Lane>();
  /** The lane of each task waiting, by id, so it can be withdrawn. */
  private readonly laneOf = new Map<number, string>();

  /** Runs `task` once its lane has room; undefined when it was withdrawn, or waited `waitAtMostMs`, before it started. */
  async run<T>(laneName: string, atOnce: number, id: number, task: () => Promise<T>, waitAtMostMs = Infinity): Promise<T | undefined> {
    let lane = this.lanes.get(laneName);
    if (lane === undefined) {
      lane = { running: 0, waiting: new Map() };
      this.lanes.set(laneName, lane);
    }
    if (lane.running < atOnce) lane.running += 1;
    else {
      const waiting = lane.waiting;
      this.laneOf.set(id, laneName);
      // Room is handed over by the task that ends (running stays as it was), or the wait is withdrawn.
      const expiry = Number.isFinite(waitAtMostMs) ? setTimeout(() => this.withdraw(id), waitAtMostMs) : undefined;
      const starts = await new Promise<boolean>((settle) => waiting.set(id, settle)).finally(() => clearTimeout(expiry));
      if (!starts) return undefined;
    }
    try {
      return await task();
    } finally {
      this.ended(laneName, lane);
    }
  }

  /** Withdraws a task still waiting for its lane; one already started runs on. */
  withdraw(id: number): void {
    const laneName = this.laneOf.get(id);
    if (laneName === undefined) return;
    this.laneOf.delete(id);
    const waiting = this.lanes.get(laneName)?.waiting;
    const settle = waiting?.get(id);
    waiting?.delete(id);
    settle?.(false);
  }

  /** The first task waiting starts in the place of one that ended; with none, the lane has room (and is forgotten once idle). */
  private ended(laneName: string, lane: Lane): void {
    const first = lane.waiting.entries().next();
    if (first.done === true) {
      lane.running -= 1;
      if (lane.running === 0) this.lanes.delete(laneName);
      return;
    }
    const [id, settle] = first.value;
    lane.waiting.delete(id);
    this.laneOf.delete(id);
    settle(true);
  }
}
