import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../ports/event-store.js';
import { type Backoff, backoffDelay } from '../support/backoff.js';
import { pause } from '../support/pause.js';
import { TurnBatch } from '../support/turn-batch.js';
import type { Wakeup } from '../support/wakeup.js';
import type { Lane } from './lanes.js';

/** Events per page at most: a projection commits once per page. */
const PAGE_SIZE = 512;
/** Pages the reader reads ahead of the fastest lane. */
const READ_AHEAD = 2;
/** Events kept for lanes that lag; one further behind reads the log itself until it catches up. */
const RETAINED_EVENTS = 16 * PAGE_SIZE;
/** A lane that has not moved for this long is stalled: the reader goes on without it. */
const STALL_MS = 1000;

/**
 * The one reader of the log for every lane: each page is read (and its personal data opened) once and kept
 * until every lane has handled it, read at the pace of the fastest lane as long as the slowest keeps up.
 */
export class PageReader {
  /** Pages read and not yet handled by every lane, oldest first. */
  private readonly pages: { events: RecordedEvent[]; last: bigint }[] = [];
  /** Events in `pages`. */
  private retained = 0;
  /** The reader resumes after this position. */
  private head = 0n;
  /** Events up to here are no longer kept: a lane behind it reads the log itself. */
  private floor = 0n;
  /** The page being read, kept once the subscription has nothing more ready in this turn or it is full. */
  private readonly filling = new TurnBatch<RecordedEvent>((events) => this.keep(events));

  constructor(
    private readonly events: EventStore,
    private readonly lanes: readonly Lane[],
    private readonly changes: Wakeup,
    private readonly logger: Logger,
    private readonly retry: Backoff,
  ) {}

  /** Starts afresh after `position`, with no pages kept. */
  resumeAfter(position: bigint): void {
    this.pages.length = 0;
    this.retained = 0;
    this.head = this.floor = position;
  }

  /**
   * Reads pages until `signal` aborts. A page ends at PAGE_SIZE events or where the next event has to be
   * waited for (the subscription has nothing ready: the flush scheduled with setImmediate runs), so a
   * catch-up reads big pages and a caught-up reader hands each append on at once.
   */
  async read(signal: AbortSignal): Promise<void> {
    const onCheckpoint = (position: bigint) => this.searchedTo(position);
    let failures = 0;
    while (!signal.aborted) {
      try {
        for await (const event of this.events.subscribeToAll({ after: this.head, signal, onCheckpoint })) {
          failures = 0;
          this.filling.add(event);
          if (this.filling.size < PAGE_SIZE) continue;
          this.filling.flush();
          await this.waitForLanes(signal);
          if (signal.aborted) break;
        }
      } catch (error) {
        this.logger.error({ err: error }, 'projector could not read the log; resuming');
        await pause(backoffDelay(this.retry, ++failures), signal);
      }
      // What was read stands: the next subscription resumes after it.
      this.filling.flush();
    }
  }

  /** Keeps a page read for the lanes. */
  private keep(events: RecordedEvent[]): void {
    this.head = events.at(-1)!.position;
    this.pages.push({ events, last: this.head });
    this.retained += events.length;
    this.dropHandledPages();
    this.changes.wake();
  }

  /** The store searched the log up to `position` and found no more events: lanes with nothing pending move there. */
  private searchedTo(position: bigint): void {
    this.filling.flush();
    if (position > this.head) this.head = position;
    this.changes.wake();
  }

  /** The lane's next events: from the kept pages, or from the log when it is behind them; undefined once stopped. */
  async nextFor(lane: Lane, signal: AbortSignal): Promise<RecordedEvent[] | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      if (lane.position < this.floor) return this.events.readAll({ after: lane.position, limit: PAGE_SIZE });
      const page = this.pages.find((candidate) => candidate.last > lane.position);
      if (page !== undefined)
        return page.events[0]!.position > lane.position ? page.events : page.events.filter((event) => event.position > lane.position);
      if (this.head > lane.position) {
        await lane.checkpointAt(this.head);
        continue;
      }
      await this.changes.wait();
    }
  }

  /** Drops the pages every lane has handled, and the oldest beyond what is kept for laggards. */
  dropHandledPages(): void {
    const slowest = this.lanes.reduce((min, lane) => (lane.position < min ? lane.position : min), this.head);
    while (this.pages.length > 0 && (this.pages[0]!.last <= slowest || this.retained > RETAINED_EVENTS)) {
      const dropped = this.pages.shift()!;
      this.retained -= dropped.events.length;
      this.floor = dropped.last;
    }
  }

  /**
   * Waits until the fastest lane is about to need another page and the kept pages have room for it, or
   * until the slowest lane has stalled: the reader then goes on, and the laggard reads the log itself.
   */
  private async waitForLanes(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const fastest = this.lanes.reduce((max, lane) => (lane.position > max ? lane.position : max), this.floor);
      if (this.pages.filter((page) => page.last > fastest).length >= READ_AHEAD) {
        await this.changes.wait();
        continue;
      }
      if (this.retained + PAGE_SIZE <= RETAINED_EVENTS) return;
      const still = performance.now() - this.lanes.reduce((slowest, lane) => (lane.position < slowest.position ? lane : slowest)).movedAt;
      if (still >= STALL_MS) return;
      await this.changes.wait(STALL_MS - still);
    }
  }
}
