import type { Logger } from 'pino';
import type { RequestLogStore } from '../ports/request-log.js';

/** How often the leader prunes: a record outlives its retention by an hour at most. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Removes the request log's records older than its retention: once as a replica starts leading, then every hour,
 * one run at a time. Only the leader prunes, so replicas never race one another over the same rows.
 */
export function requestLogPruning(store: RequestLogStore, retentionMs: number, clock: () => Date, logger: Logger) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= store
      .prune(clock().getTime() - retentionMs)
      .then(
        (removed) => {
          if (removed > 0) logger.info({ removed }, 'request log pruned past its retention');
        },
        (error: unknown) => logger.warn({ err: error }, 'request log not pruned; tried again within the hour'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  return {
    start(): void {
      run();
      timer ??= setInterval(run, PRUNE_EVERY_MS).unref();
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
