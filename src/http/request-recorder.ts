import type { FastifyBaseLogger } from 'fastify';
import type { Environment } from '../domain/api-keys.js';
import type { RequestLogStore } from '../ports/request-log.js';
import { type NotedRequest, recordOf } from './request-record.js';

type Note = readonly [Environment, NotedRequest];

/** How long noted requests wait before they are written, together. */
const FLUSH_MS = 1_000;
/** Requests held at most; past it the oldest is dropped (and counted), so a store that does not answer costs memory, never a wait. */
export const CAPACITY = 10_000;
/** Records redacted and written in one go (about 10 ms of the event loop on a busy 2-core machine). */
const SLICE = 500;

/**
 * The request log's writer. A request only notes itself in a ring of the latest CAPACITY (synchronous: no promise,
 * no I/O); each second the notes are turned into records (redacted, request-record.ts) and written, one batch per
 * environment, as the server closes too. A batch that fails goes back in front of the newer notes, still bounded.
 */
export class RequestRecorder {
  /** The notes waiting, oldest first, from `start` on (those before it were dropped). */
  private ring: Note[] = [];
  private start = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The batch being written: one at a time, so a store that hangs holds one batch and the bounded ring, no more. */
  private writing: Promise<void> | undefined;

  constructor(
    private readonly stores: (environment: Environment) => RequestLogStore,
    private readonly routeWords: ReadonlySet<string>,
    private readonly logger: FastifyBaseLogger,
  ) {}

  note(environment: Environment, request: NotedRequest): void {
    if (this.ring.length - this.start >= CAPACITY) this.dropOldest();
    this.ring.push([environment, request]);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what was noted so far, after the batch under way; resolves once it is written (or failed and was put back). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing !== undefined) await this.writing;
    const taken = this.ring.slice(this.start);
    this.ring = [];
    this.start = 0;
    if (taken.length === 0 && this.dropped === 0) return;
    this.writing = this.write(taken).finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }

  private dropOldest(): void {
    this.start += 1;
    this.dropped += 1;
    // The dropped prefix is cut off now and then, not one shift per note.
    if (this.start >= CAPACITY) {
      this.ring = this.ring.slice(this.start);
      this.start = 0;
    }
  }

  private async write(taken: Note[]): Promise<void> {
    if (this.dropped > 0) {
      this.logger.warn({ dropped: this.dropped }, 'request log: requests dropped, the store did not keep up');
      this.dropped = 0;
    }
    const batches = new Map<Environment, Note[]>();
    for (const note of taken) {
      const batch = batches.get(note[0]);
      if (batch === undefined) batches.set(note[0], [note]);
      else batch.push(note);
    }
    for (const [environment, notes] of batches) {
      for (let start = 0; start < notes.length; start += SLICE) {
        const slice = notes.slice(start, start + SLICE);
        try {
          await this.stores(environment).append(slice.map(([, noted]) => recordOf(noted, this.routeWords)));
        } catch (error) {
          this.logger.warn({ err: error, environment, requests: slice.length }, 'request log not written; tried again with the next');
          this.putBack(slice);
        }
        // Requests are answered between slices: a busy second's batch never holds the event loop for long.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** Notes that failed to be written, ahead of the newer ones, within the capacity (the oldest go first). */
  private putBack(notes: Note[]): void {
    const waiting = this.ring.slice(this.start);
    const room = Math.max(0, CAPACITY - waiting.length);
    this.dropped += notes.length - Math.min(room, notes.length);
    this.ring = [...notes.slice(notes.length - Math.min(room, notes.length)), ...waiting];
    this.start = 0;
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }
}
