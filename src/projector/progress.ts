import type { Logger } from 'pino';
import { type Fence, FencedOffError, type ReadModelStore } from '../ports/read-models.js';
import { type Backoff, backoffDelay } from '../support/backoff.js';
import type { Lane } from './lanes.js';

/**
 * The checkpoint every projection has reached (events skipped included), kept by the replica that runs
 * them for the replicas that do not: their writes wait on it.
 */
export const PROJECTED = 'projections';

/** A run of the handlers on this replica whose lanes have loaded their checkpoints: its fence guards PROJECTED. */
export interface LoadedRun {
  readonly fence: Fence | undefined;
}

/**
 * How far the projections are on this replica: the writes waiting to read their own effects
 * (read-your-writes), and PROJECTED, kept up for the replicas that follow.
 */
export class Progress {
  private readonly waiters = new Set<{ position: bigint; resolve: (reached: boolean) => void }>();
  /** PROJECTED as last written, and the write under way. */
  private lastPublished = 0n;
  /** Progress writes refused in a row (the store down): each retry waits longer. */
  private failures = 0;
  private publishing: Promise<void> | undefined;

  constructor(
    /** The lanes whose progress writes wait on. */
    private readonly tracked: readonly Lane[],
    private readonly readModels: ReadModelStore,
    private readonly logger: Logger,
    private readonly retry: Backoff,
    private readonly loadedRun: () => LoadedRun | undefined,
  ) {}

  /** The last position every tracked lane has handled. */
  processed(): bigint {
    return this.tracked.reduce((min, lane) => (lane.position < min ? lane.position : min), this.tracked[0]?.position ?? 0n);
  }

  get writesWaiting(): boolean {
    return this.waiters.size > 0;
  }

  /** Resolves true once `answerWaitsUpTo` reaches `position`, false after `timeoutMs` or `abandonWaits`. */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Answers the writes waiting for a position up to `position`. */
  answerWaitsUpTo(position: bigint): void {
    for (const waiter of this.waiters) if (waiter.position <= position) waiter.resolve(true);
  }

  /** Answers every waiting write false: it will not be reached here. */
  abandonWaits(): void {
    for (const waiter of this.waiters) waiter.resolve(false);
  }

  /** Keeps PROJECTED up with the projections for the replicas that follow, one write at a time, under the run's fence. */
  publish(): void {
    const run = this.loadedRun();
    if (this.publishing !== undefined || run === undefined) return;
    const processed = this.processed();
    if (processed <= this.lastPublished) return;
    let retry = false;
    this.publishing = this.readModels
      .commit(PROJECTED, processed, [], run.fence)
      .then(
        () => {
          this.lastPublished = processed;
          this.failures = 0;
        },
        (error: unknown) => {
          retry = !(error instanceof FencedOffError);
          if (retry) this.failures++;
          this.logger.warn({ err: error }, 'could not record how far the projections are');
        },
      )
      .finally(() => {
        this.publishing = undefined;
        if (this.loadedRun() !== run) return;
        if (retry) setTimeout(() => this.publish(), backoffDelay(this.retry, this.failures));
        else this.publish();
      });
  }

  /** Resolves once the write of PROJECTED under way, if any, has ended. */
  async publicationSettled(): Promise<void> {
    await this.publishing;
  }
}
