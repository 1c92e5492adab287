import type { Logger } from 'pino';
import type { EventStore } from '../ports/event-store.js';
import type { Projection, Reactor } from '../ports/projection.js';
import { type Fence, FencedOffError, type ReadModelStore } from '../ports/read-models.js';
import { type Backoff, backoffDelay } from '../support/backoff.js';
import { pause } from '../support/pause.js';
import { Wakeup } from '../support/wakeup.js';
import { type CatchUpLimits, catchUp, catchUpLimits } from './catch-up.js';
import { FollowerPolling } from './follower-polling.js';
import { type Lane, ProjectionLane, ReactorLane } from './lanes.js';
import { PageReader } from './page-reader.js';
import { Progress } from './progress.js';

/** One run of the handlers on this replica: from `start` until it follows, stops, or is fenced off. */
interface Run {
  abort: AbortController;
  running: Promise<void>;
  fence: Fence | undefined;
  /** Whether its lanes have loaded their checkpoints: their positions count from then on. */
  loaded: boolean;
}

/**
 * Runs the projections and reactors of one log from one reader: each page of events is read (and its
 * personal data opened) once and handed to every handler, each in its own lane with its own checkpoint, so
 * a failing or slow handler stalls only itself. A projection folds a page into one write per document and
 * commits them with its checkpoint, so a restart resumes where it stopped and a replayed page changes
 * nothing; a reactor's checkpoint follows its reactions (reactors tolerate a repeat).
 *
 * Among replicas, the one that leads runs them (`start` with its fence; every commit is refused once the
 * lease has passed on) and the others follow (`follow`): their `waitFor` watches the leader's progress in
 * the store.
 */
export class Projector {
  private readonly lanes: Lane[];
  private readonly projecting: ProjectionLane[];
  /** Wakes everyone waiting for the projector to change: a page read, a lane moved, a stop. */
  private readonly changes = new Wakeup();
  private readonly reader: PageReader;
  private readonly progress: Progress;
  private readonly polling: FollowerPolling;
  private readonly retry: Backoff;
  private current: Run | undefined;
  private stopped = false;

  constructor(
    private readonly events: EventStore,
    private readonly readModels: ReadModelStore,
    projections: readonly Projection[],
    reactors: readonly Reactor[],
    private readonly logger: Logger,
    retryDelayMs = 1000,
    /** False: the projections always page through the log (tests of the paging). */
    private readonly catchUpBounds: CatchUpLimits | false = catchUpLimits,
  ) {
    // A failure that lasts (a store down) is retried less and less often, replicas apart, up to 30 first waits.
    this.retry = { firstDelayMs: retryDelayMs, maxDelayMs: 30 * retryDelayMs, jitter: 0.2 };
    // A log that projects in its appends' transactions moves the checkpoints itself: each lane reads its own first.
    const inline = events.projectedWith === undefined ? undefined : (position: bigint) => events.projectedWith?.(position) === true;
    const projecting = projections.map((projection) => new ProjectionLane(projection, readModels, inline));
    this.projecting = projecting;
    this.lanes = [...projecting, ...reactors.map((reactor) => new ReactorLane(reactor, readModels))];
    this.reader = new PageReader(events, this.lanes, this.changes, logger, this.retry);
    // Writes wait on the projections (on the reactors when there are none).
    const tracked = projecting.length > 0 ? projecting : this.lanes;
    this.progress = new Progress(tracked, readModels, logger, this.retry, () => (this.current?.loaded ? this.current : undefined));
    this.polling = new FollowerPolling(readModels, this.progress, logger, () => this.current === undefined && !this.stopped);
  }

  /**
   * Runs the handlers from their checkpoints, each commit under `fence` when given (the lease of a leader),
   * and each reaction after `guard` (by default, the store's word that the fence still holds): a reactor's
   * effects lie outside the store, so a deposed leader must not start one.
   */
  start(fence?: Fence, guard: (() => Promise<void>) | undefined = fence && (() => this.readModels.checkFence(fence))): void {
    if (this.current !== undefined || this.stopped) return;
    for (const lane of this.lanes) {
      lane.fence = fence;
      lane.guard = guard;
    }
    const run: Run = { abort: new AbortController(), running: Promise.resolve(), fence, loaded: false };
    run.running = this.run(run).finally(() => {
      if (this.current !== run) return;
      // Ended by follow(), stop(), or a fence: waiting writes follow the store from now on.
      this.current = undefined;
      this.polling.watch();
    });
    this.current = run;
  }

  /** Stops running the handlers (another replica leads); `waitFor` goes on, watching the store. */
  async follow(): Promise<void> {
    const run = this.current;
    if (run === undefined) return;
    run.abort.abort();
    this.changes.wake();
    await run.running;
    await this.progress.publicationSettled();
  }

  /** Stops for good: the handlers, and every write still waiting (answered false). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.follow();
    this.progress.abandonWaits();
  }

  /**
   * Resolves true once every projection has handled the event at `position` (read-your-writes for the
   * caller that appended it), here, in the append's own transaction (EventStore.projectedWith) or, on a replica
   * that does not run them, as the store says; false after `timeoutMs`.
   */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.events.projectedWith?.(position) === true) return Promise.resolve(true);
    if (this.current?.loaded === true && this.progress.processed() >= position) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    const reached = this.progress.waitFor(position, timeoutMs);
    this.polling.watch();
    return reached;
  }

  private async run(run: Run): Promise<void> {
    const signal = run.abort.signal;
    for (let failures = 1; !signal.aborted; failures++) {
      try {
        for (const lane of this.lanes) await lane.load();
        break;
      } catch (error) {
        this.logger.error({ err: error }, 'projector could not read its checkpoints; trying again');
        await pause(backoffDelay(this.retry, failures), signal);
      }
    }
    if (signal.aborted || !(await this.caughtUp(run))) return;
    // Lanes resume together from the oldest checkpoint; each skips what it has already done.
    this.reader.resumeAfter(this.lanes.reduce((min, lane) => (lane.position < min ? lane.position : min), this.lanes[0]?.position ?? 0n));
    run.loaded = true;
    this.laneMoved();
    await Promise.all([this.reader.read(signal), ...this.lanes.map((lane) => this.driveLane(lane, run.abort))]);
  }

  /**
   * The projections catch up on a long log in one scan first (catch-up.ts). False when fenced off: the run ends.
   * Any other failure leaves them to page through the log as usual, from where they stand.
   */
  private async caughtUp(run: Run): Promise<boolean> {
    if (this.catchUpBounds === false) return true;
    try {
      await catchUp(this.events, this.projecting, run.abort.signal, this.catchUpBounds);
      return true;
    } catch (error) {
      if (error instanceof FencedOffError) {
        this.logger.warn('another replica leads now; the projections and reactors stop here');
        run.abort.abort();
        return false;
      }
      // What it committed stands (each lane's position with it): the lanes page on from there.
      this.logger.error({ err: error }, 'projections could not catch up in one scan; paging through the log instead');
      return true;
    }
  }

  /**
   * One handler's loop: after a failure, it alone pauses and resumes from its checkpoint. A commit refused by
   * the fence means another replica leads now: the whole run stops at once.
   */
  private async driveLane(lane: Lane, abort: AbortController): Promise<void> {
    const signal = abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (failures > 0) await lane.load();
        const events = await this.reader.nextFor(lane, signal);
        if (events === undefined) return;
        await lane.handle(events, signal);
        failures = 0;
      } catch (error) {
        if (error instanceof FencedOffError) {
          this.logger.warn({ handler: lane.name }, 'another replica leads now; the projections and reactors stop here');
          abort.abort();
          this.changes.wake();
          return;
        }
        failures++;
        this.logger.error({ err: error, handler: lane.name }, `${lane.name} failed; resuming from its checkpoint`);
        await pause(backoffDelay(this.retry, failures), signal);
      }
      this.reader.dropHandledPages();
      this.laneMoved();
    }
  }

  /** Answers the writes the projections have now reached, wakes the reader and the lanes, and tells the followers. */
  private laneMoved(): void {
    this.progress.answerWaitsUpTo(this.progress.processed());
    this.changes.wake();
    this.progress.publish();
  }
}
