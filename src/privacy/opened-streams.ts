import type { RecordedEvent } from '../ports/event-store.js';

/** A stream as read and opened: its revision, its events, and the subjects whose personal data they hold opened. */
export interface OpenedStream {
  revision: bigint;
  events: readonly RecordedEvent[];
  subjects: ReadonlySet<string>;
}

export interface OpenedStreamLimits {
  /** Streams kept at most; the least recently read goes first. */
  maxEntries: number;
  /** How long a stream is kept after it was last read. */
  ttlMs: number;
}

/**
 * The defaults, documented in docs/operations.md: a subject answering a page every few minutes finds its
 * assessment here; at about 10 KB of heap for an assessment answered in full (measured), 2,000 streams hold
 * ~20 MB.
 */
export const OPENED_STREAM_LIMITS: OpenedStreamLimits = { maxEntries: 2000, ttlMs: 5 * 60_000 };

interface Entry extends OpenedStream {
  until: number;
}

/**
 * Streams read through the log and opened, kept so that the next read of one fetches and opens only the
 * events appended since (EncryptingEventStore). They hold personal data in the clear, so the cache is bounded
 * in entries and in time (on the monotonic clock, swept by a timer that keeps no process alive), and a
 * subject's streams are dropped as soon as its key is destroyed here (forgetSubject).
 */
export class OpenedStreamCache {
  /** In the order they were last read: the oldest first, for eviction and for the sweep. */
  private readonly entries = new Map<string, Entry>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: OpenedStreamLimits = OPENED_STREAM_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(streamName: string): OpenedStream | undefined {
    const entry = this.entries.get(streamName);
    if (entry === undefined || entry.until > this.now()) return entry;
    this.entries.delete(streamName);
    return undefined;
  }

  /** Keeps `stream` as read now, unless a concurrent read already kept it at a later revision. */
  set(streamName: string, stream: OpenedStream): void {
    const kept = this.entries.get(streamName);
    if (kept !== undefined && kept.revision > stream.revision) return;
    this.entries.delete(streamName);
    this.entries.set(streamName, { ...stream, until: this.now() + this.limits.ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries) break;
      this.entries.delete(oldest);
    }
    this.sweeper ??= setInterval(() => this.sweep(), this.limits.ttlMs).unref();
  }

  delete(streamName: string): void {
    this.entries.delete(streamName);
  }

  /** Drops every stream holding the subject's personal data: its key was destroyed. */
  forgetSubject(subjectId: string): void {
    for (const [name, entry] of this.entries) if (entry.subjects.has(subjectId)) this.entries.delete(name);
  }

  clear(): void {
    this.entries.clear();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Drops the streams past their time, the oldest first; stops the timer once none is left. */
  private sweep(): void {
    const now = this.now();
    for (const [name, entry] of this.entries) {
      if (entry.until > now) break;
      this.entries.delete(name);
    }
    if (this.entries.size === 0) this.clear();
  }
}
