import type { Logger } from 'pino';
import { expireAssessment } from '../commands/assessments.js';
import type { EventStore } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { pause } from '../support/pause.js';
import { expiryHour } from './assessments.js';

const HOUR_MS = 60 * 60 * 1000;
/** A new leader looks this far back: assessments that expired while no replica led (a stopped service) are recorded too. */
const LOOK_BACK_MS = 30 * 24 * HOUR_MS;
const PAGE = 100;

export interface ExpiryWatchServices {
  events: EventStore;
  readModels: ReadModelStore;
}

/**
 * Run by the leader: records each open assessment whose expiry has passed as expired, so nature.assessment.expired
 * is sent when the expiry is reached, not when someone next reads the assessment. Every `checkMs` it lists the open
 * assessments expiring in the hours since its last look (`expiry_hour`, an equality every store indexes), from a
 * month back when it starts. Recording is a command at the stream's revision, so two leaders at a handover, or a
 * batch landing at the last moment, record nothing twice and nothing wrong.
 */
export class ExpiryWatch {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly services: ExpiryWatchServices,
    private readonly checkMs: number,
    private readonly logger: Logger,
    private readonly clock: () => Date,
  ) {}

  start(): void {
    this.running ??= this.watch();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async watch(): Promise<void> {
    let from = this.clock().getTime() - LOOK_BACK_MS;
    while (!this.stopping.signal.aborted) {
      const now = this.clock();
      try {
        await this.expireDue(from, now);
        // The current hour may hold expiries still to come: it is looked at again next time.
        from = now.getTime();
      } catch (error) {
        this.logger.warn({ err: error }, 'expiry watch: a check failed; it runs again');
      }
      await pause(this.checkMs, this.stopping.signal);
    }
  }

  /** Records every open assessment expiring from `from`'s hour to `now` (inclusive) as expired. */
  private async expireDue(from: number, now: Date): Promise<void> {
    for (let hour = from - (from % HOUR_MS); hour <= now.getTime() && !this.stopping.signal.aborted; hour += HOUR_MS) {
      const where = { expiry_hour: expiryHour(new Date(hour).toISOString()) };
      let after: string | undefined;
      for (;;) {
        const page = await this.services.readModels.list('assessments', { where, limit: PAGE, ...(after && { startingAfter: after }) });
        for (const assessment of page.data) {
          if (Date.parse(assessment.expires_at) > now.getTime()) continue;
          if (await expireAssessment(this.services.events, assessment.id, now)) {
            this.logger.info({ assessment_id: assessment.id }, 'assessment expired');
          }
        }
        if (!page.hasMore) break;
        after = page.data.at(-1)!.id;
      }
    }
  }
}
