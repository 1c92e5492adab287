import type { Logger } from 'pino';
import type { Fence, ReadModelStore } from './ports/read-models.js';
import { pause } from './pause.js';

/** What a replica runs only while it leads: started with the lease's fence, stopped when the lease is lost. */
export interface Led {
  lead(fence: Fence): void;
  follow(): Promise<void>;
}

export type Role = 'leader' | 'follower';

export interface LeadershipOptions {
  /** The lease's name in the store. */
  name: string;
  /** This replica, unique among those that share the store. */
  holder: string;
  /** How long the lease lasts unless renewed; renewed three times as often. */
  ttlMs: number;
}

/**
 * One lease among the replicas that share a read-model store: the holder leads (runs what `led` starts)
 * and renews it; the others try to take it as often, and one does once it expires (its holder died) or is
 * released (its holder stopped). A leader that cannot renew stops leading before the lease can expire, so two
 * never lead at once while their clocks run at the same rate; the fence covers the rest, as each new holder
 * gets a higher token and the store refuses commits under an older one.
 */
export class Leadership {
  private token: number | undefined;
  /** Steps down when the lease has not been renewed in time. */
  private deadline: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private started = false;
  /** Changes of role, one at a time. */
  private changing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<ReadModelStore, 'acquireLease' | 'releaseLease'>,
    private readonly options: LeadershipOptions,
    private readonly led: Led,
    private readonly logger: Logger,
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
   * Stops leading (what `led` runs stops first) and lets the lease go, so another replica takes over at once.
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
    const every = ttlMs / 3;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      const sent = performance.now();
      let token: number | undefined;
      let answered = true;
      try {
        token = await this.store.acquireLease(this.options.name, this.options.holder, ttlMs);
      } catch (error) {
        answered = false;
        this.logger.warn({ err: error, lease: this.options.name }, 'could not take or renew the lease');
      }
      // A renewal that took most of the lease's time is too late to rely on: the lease may be another's by now.
      const late = performance.now() >= sent + safeShare(ttlMs);
      if (signal.aborted) {
        if (token !== undefined) await this.release();
        return;
      }
      if (token !== undefined && !late) await this.lead(token, sent + safeShare(ttlMs));
      else if (answered && token === undefined) await this.stepDown('another replica holds the lease');
      // Not answered (or too late): keep leading until the deadline armed at the last renewal.
      await pause(every, signal);
    }
  }

  /** Leads under `token` until `validUntil` (performance.now()) unless renewed before. */
  private lead(token: number, validUntil: number): Promise<void> {
    return this.change(async () => {
      if (this.token !== undefined && this.token !== token) await this.follow('the lease was taken anew');
      clearTimeout(this.deadline);
      this.deadline = setTimeout(() => void this.stepDown('the lease could not be renewed in time'), Math.max(0, validUntil - performance.now()));
      if (this.token === token) return;
      this.token = token;
      this.logger.info({ lease: this.options.name, token }, 'leading: this replica runs the projections, reactors and webhook delivery');
      this.led.lead({ lease: this.options.name, token });
    });
  }

  private stepDown(reason: string): Promise<void> {
    return this.change(() => this.follow(reason));
  }

  /** Inside `change` only. */
  private async follow(reason: string): Promise<void> {
    clearTimeout(this.deadline);
    if (this.token === undefined) return;
    this.token = undefined;
    this.logger.info({ lease: this.options.name, reason }, 'no longer leading: the projections, reactors and webhook delivery stop here');
    await this.led.follow();
  }

  private change(work: () => Promise<void>): Promise<void> {
    this.changing = this.changing.then(work).catch((error: unknown) => {
      this.logger.error({ err: error, lease: this.options.name }, 'changing role failed');
    });
    return this.changing;
  }
}

/**
 * The part of the lease a holder relies on after sending a renewal: the rest is left for stopping what it
 * runs before another replica can take the lease.
 */
function safeShare(ttlMs: number): number {
  return (ttlMs * 5) / 6;
}
