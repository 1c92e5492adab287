import { constants } from 'node:os';
import type { Logger } from 'pino';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/**
 * Ctrl-C under `npm start` arrives twice, from the terminal and forwarded by npm, a moment apart: the
 * same signal within this time is that one press, not a second request to stop.
 */
const SAME_PRESS_MS = 500;

/**
 * On SIGTERM or SIGINT runs `stop` once (stop accepting, finish what is in flight, close the stores),
 * then exits 0, or 1 when stopping failed. A second signal exits at once, with 128 + its number as a
 * shell reports a killed process.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = { signal, at: performance.now() };
      logger.info({ signal }, 'stopping: finishing the requests in flight; a second signal exits at once');
      stop().then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'stopping failed');
          process.stderr.write(`shutdown error: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exit(1);
        },
      );
      return;
    }
    if (signal === first.signal && performance.now() - first.at < SAME_PRESS_MS) return;
    logger.warn({ signal }, 'second signal: exiting at once');
    process.exit(128 + constants.signals[signal]);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
}
