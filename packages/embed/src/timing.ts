// Per-item timing for the answer-quality indicators: how long the person took over each answer
// (`response_time_ms`) and when they gave it in the server's clock (`answered_at`). Both are read from the
// monotonic clock (performance.now()) at the moment of the choice, so a change of the browser's clock cannot
// skew them; the outbox sends them later, in a batch, unchanged. Free of DOM types: unit-tested under Node.

/** The API's bound on `response_time_ms`: an hour. */
export const MAX_RESPONSE_TIME_MS = 3_600_000;

/** What an answer carries besides its value. */
export interface AnswerTiming {
  /** RFC 3339 (UTC, `Z`), in the server's clock as estimated by ServerClock. */
  answered_at: string;
  /** Whole milliseconds from when the item became current on screen to the choice, 0..MAX_RESPONSE_TIME_MS. */
  response_time_ms: number;
}

/**
 * A Date header is the server's time cut down to the whole second: the server's clock read somewhere in the
 * second after it. Half a second is the middle of that second, so the estimate is off by at most ±0.5 s
 * before the response's travel time (which only makes it late).
 */
export const DATE_ROUNDING_MS = 500;

/**
 * The server's clock, estimated from the Date headers of the component's own API responses, so that a
 * browser whose clock is wrong still sends an `answered_at` the API accepts (it refuses one in its future).
 *
 * Each header gives an offset between the server's clock and the browser's monotonic clock
 * (performance.now()) at the moment the response arrived: `Date + 0.5 s − performance.now()`. The server's
 * time at any later moment is that moment's performance.now() plus the offset. Carried on the monotonic
 * clock, no estimate is ever more than 0.5 s ahead of the server's true time: the response's travel time, a
 * cached or delayed response, or the machine sleeping (the monotonic clock may pause) only put it behind. So
 * the newest header is taken when it puts the server's time later than the estimate held (the usual case,
 * and after a sleep), and otherwise kept as is: the estimate never goes back, which makes the `answered_at`
 * of successive answers monotonic, never later than the estimated server time, and never moved back by
 * a stale Date of a cached answer. Before any header was read, the browser's own clock is used (offset 0).
 */
export class ServerClock {
  /** Server time minus monotonic time, from the Date headers read so far; null before any. */
  private offset: number | null = null;
  private readonly monotonic: () => number;
  private readonly wall: () => number;

  constructor(monotonic: () => number, wall: () => number) {
    this.monotonic = monotonic;
    this.wall = wall;
  }

  /** Whether a Date header has been read. */
  get synchronised(): boolean {
    return this.offset !== null;
  }

  /** A response's Date header (null when it had none, or the page may not read it), read as it arrives. */
  observe(header: string | null, receivedAt = this.monotonic()): void {
    if (header === null) return;
    const date = Date.parse(header);
    if (Number.isNaN(date)) return;
    const offset = date + DATE_ROUNDING_MS - receivedAt;
    if (this.offset === null || offset > this.offset) this.offset = offset;
  }

  /** The server's time (epoch ms) at the monotonic instant `at` (a performance.now() reading). */
  at(at: number): number {
    if (this.offset === null) return this.wall() - (this.monotonic() - at);
    return Math.round(at + this.offset);
  }
}

/**
 * When each item became current to the person, and so how long each answer took. An item becomes current
 * when it comes into view (at least half of it on screen), when the page it is on is shown again, or, for an
 * item already in view, when the person answers another item (their attention was there until then). A change
 * of the same item's answer (arrowing through its options, say) keeps the start; a later change, after
 * answering other items or once the item came back into view, is timed from then. Before the first report of
 * what is in view, the items count as current from when they were rendered.
 */
export class ItemClock {
  private readonly renderedAt: number;
  /** When each item last came into view (or was in view as the page was shown again). */
  private readonly inViewSince = new Map<string, number>();
  private readonly inView = new Set<string>();
  /** When the person turned to each item from answering another one. */
  private readonly turnedAt = new Map<string, number>();
  private last: { itemId: string; at: number } | null = null;

  constructor(renderedAt: number) {
    this.renderedAt = renderedAt;
  }

  /** The item came into view (`true`) or left it (`false`). */
  visible(itemId: string, visible: boolean, at: number): void {
    if (!visible) {
      this.inView.delete(itemId);
      return;
    }
    if (this.inView.has(itemId)) return;
    this.inView.add(itemId);
    this.inViewSince.set(itemId, at);
  }

  /** The page was shown again (it was hidden: another tab, a minimised window): what is in view is shown anew. */
  pageShown(at: number): void {
    for (const itemId of this.inView) this.inViewSince.set(itemId, at);
  }

  /** The person chose an answer to `itemId` at `at`: the whole milliseconds it took, 0..MAX_RESPONSE_TIME_MS. */
  answered(itemId: string, at: number): number {
    if (this.last !== null && this.last.itemId !== itemId) this.turnedAt.set(itemId, this.last.at);
    this.last = { itemId, at };
    const start = Math.max(this.inViewSince.get(itemId) ?? this.renderedAt, this.turnedAt.get(itemId) ?? this.renderedAt);
    return Math.min(MAX_RESPONSE_TIME_MS, Math.max(0, Math.round(at - start)));
  }
}
