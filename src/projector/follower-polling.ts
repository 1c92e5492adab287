import type { Logger } from 'pino';
import type { ReadModelStore } from '../ports/read-models.js';
import { pause } from '../support/pause.js';
import { PROJECTED, type Progress } from './progress.js';

/** How often a replica that does not run the projections looks at PROJECTED while a write waits on it. */
const POLL_MS = 20;

/** Answers the writes waiting on a replica that does not run the projections, from PROJECTED as the leader writes it. */
export class FollowerPolling {
  private polling = false;

  constructor(
    private readonly readModels: ReadModelStore,
    private readonly progress: Progress,
    private readonly logger: Logger,
    /** Whether this replica follows: it neither runs the handlers now nor has stopped. */
    private readonly following: () => boolean,
  ) {}

  /** Polls PROJECTED while writes wait and this replica follows; one poll at a time. */
  watch(): void {
    const needed = () => this.progress.writesWaiting && this.following();
    if (this.polling || !needed()) return;
    this.polling = true;
    void (async () => {
      try {
        while (needed()) {
          let projected: bigint | undefined;
          try {
            projected = await this.readModels.checkpoint(PROJECTED);
          } catch (error) {
            this.logger.warn({ err: error }, 'could not read how far the projections are; trying again');
          }
          if (projected !== undefined) this.progress.answerWaitsUpTo(projected);
          await pause(POLL_MS);
        }
      } finally {
        this.polling = false;
      }
      // A write that began to wait as this poll ended is watched by a new one.
      this.watch();
    })();
  }
}
