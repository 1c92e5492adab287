import type { Logger } from 'pino';
import { type Fence, FencedOffError, type ReadModelStore } from '../ports/read-models.js';
import { pause } from '../support/pause.js';

/** A term of leadership: the lease's fence, and the check a side effect outside the store makes first. */
export interface Lead {
  fence: Fence;
  /**
   * Resolves while this replica still leads under `fence`, by both of its clocks and by the store; throws
   * FencedOffError once it does not. Called before a webhook POST or a publish, which no store can fence.
   */
  guard(): Promise<void>;
}

/** What a replica runs only while it leads: started with its term, stopped when the lease is lost. */
export interface LeaderDuties {
  lead(lead: Lead): void;
  follow(): Promise<void>;
}

/** Two readings of the time: the monotonic clock stands still while a VM is frozen, the wall clock does not. */
export interface Clocks {
  monotonic(): number;
  wall(): number;
}

const systemClocks: Clocks = { monotonic: () => performance.now(), wall: () => Date.now() };

/** A moment on both clocks: it has passed once either clock says so. */
interface Instant {
  monotonic: number;
  wall: number;
}

/** Lease renewals per lease length: two may fail in a row before the leader steps down. */
const RENEWALS_PER_LEASE = 6;

/** How often a leader looks at the wall clock between renewals (a frozen VM's timers fire late, or never in time). */
const WALL_CLOCK_CHECK_MS = 1000;

export type Role = 'leader' | 'follower';

export interface LeadershipOptions {
  /** The lease's name in the store. */
  name: string;
  /** This replica, unique among those that share the store. */
  holder: string;
  /** How long the lease lasts unless renewed; renewed RENEWALS_PER_LEASE times as often. */
  ttlMs: number;
}

/**
 * One lease among the replicas that share a read-model store: the holder leads (takes up its `duties`)
 * and renews it; the others try to take it as often, and one does once it expires (its holder died) or is
 * released (its holder stopped). A leader that cannot renew stops leading when half the lease has passed
 * since it sent its last successful renewal, by its monotonic clock or by its wall clock, whichever is first
 * (a VM frozen and thawed finds its wall clock moved on), so two never lead at once unless a clock runs at
 * less than half speed. The fence covers the rest: each new holder gets a higher token, the store refuses
 * commits under an older one in the same transaction, and side effects outside the store ask `guard` first.
 */
export class Leadership {
  private token: number | undefined;
  /** Until when the current term holds unless renewed. */
  private validUntil: Instant | undefined;
  /** Steps down when the lease has not been renewed in time. */
  private deadline: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private started = false;
  /** Changes of role, one at a time. */
  private changing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<ReadModelStore, 'acquireLease' | 'releaseLease' | 'checkFence'>,
    private readonly options: LeadershipOptions,
    private readonly duties: LeaderDuties,
    private readonly logger: Logger,
    private readonly clocks: Clocks = systemClocks,
  ) {}

  get role(): Role {
    return this.token === undefined ? 'follower' : 'leader';
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.loop();
  }

  /**
   * Stops leading (its `duties` stop first) and lets the lease go, so another replica takes over at once.
   * A renewal still under way (a store that does not answer) is not waited for: it lets the lease go when it ends.
   */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.stepDown('stopping');
    await this.release();
  }

  private async release(): Promise<void> {
    try {
      await this.store.releaseLease(this.options.name, this.options.holder);
    } catch (error) {
      this.logger.warn({ err: error, lease: this.options.name }, 'could not release the lease; it expires by itself');
    }
  }

  private async loop(): Promise<void> {
    const { ttlMs } = this.options;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      const sent = this.now();
      let token: number | undefined;
      let answered = true;
      try {
        token = await this.store.acquireLease(this.options.name, this.options.holder, ttlMs);
      } catch (error) {
        answered = false;
        this.logger.warn({ err: error, lease: this.options.name }, 'could not take or renew the lease');
      }
      // A renewal that took half the lease's time is too late to rely on: the rest is for stopping what this replica runs.
      const validUntil = { monotonic: sent.monotonic + ttlMs / 2, wall: sent.wall + ttlMs / 2 };
      if (signal.aborted) {
        if (token !== undefined) await this.release();
        return;
      }
      if (token !== undefined && !this.passed(validUntil)) await this.lead(token, validUntil);
      else if (answered && token === undefined) await this.stepDown('another replica holds the lease');
      // Not answered (or too late): keep leading until the deadline armed at the last renewal.
      await pause(ttlMs / RENEWALS_PER_LEASE, signal);
    }
  }

  private now(): Instant {
    return { monotonic: this.clocks.monotonic(), wall: this.clocks.wall() };
  }

  private passed(instant: Instant): boolean {
    return this.clocks.monotonic() >= instant.monotonic || this.clocks.wall() >= instant.wall;
  }

  /** Leads under `token` until `validUntil` unless renewed before. */
  private lead(token: number, validUntil: Instant): Promise<void> {
    return this.change(async () => {
      if (this.token !== undefined && this.token !== token) await this.follow('the lease was taken anew');
      this.validUntil = validUntil;
      this.watchDeadline();
      if (this.token === token) return;
      this.token = token;
      this.logger.info({ lease: this.options.name, token }, 'leading: this replica runs the projections, reactors and webhook delivery');
      const fence = { lease: this.options.name, token };
      this.duties.lead({ fence, guard: () => this.guard(fence) });
    });
  }

  /** Steps down once the term's deadline passes by either clock; the wall clock is looked at every second. */
  private watchDeadline(): void {
    clearTimeout(this.deadline);
    const until = this.validUntil;
    if (until === undefined) return;
    if (this.passed(until)) {
      void this.stepDown('the lease could not be renewed in time');
      return;
    }
    this.deadline = setTimeout(() => this.watchDeadline(), Math.min(WALL_CLOCK_CHECK_MS, until.monotonic - this.clocks.monotonic()));
  }

  /**
   * A term whose time has passed by either clock ends here, before the deadline's next look at the wall clock:
   * what it ran has stopped on this refusal, and the next renewal starts a fresh term that runs it again.
   */
  private async guard(fence: Fence): Promise<void> {
    if (this.token !== fence.token) throw new FencedOffError(fence);
    if (this.validUntil === undefined || this.passed(this.validUntil)) {
      void this.stepDown('the lease could not be renewed in time');
      throw new FencedOffError(fence);
    }
    await this.store.checkFence(fence);
  }

  private stepDown(reason: string): Promise<void> {
    return this.change(() => this.follow(reason));
  }

  /** Inside `change` only. */
  private async follow(reason: string): Promise<void> {
    clearTimeout(this.deadline);
    this.validUntil = undefined;
    if (this.token === undefined) return;
    this.token = undefined;
    this.logger.info({ lease: this.options.name, reason }, 'no longer leading: the projections, reactors and webhook delivery stop here');
    await this.duties.follow();
  }

  private change(work: () => Promise<void>): Promise<void> {
    this.changing = this.changing.then(work).catch((error: unknown) => {
      this.logger.error({ err: error, lease: this.options.name }, 'changing role failed');
    });
    return this.changing;
  }
}
