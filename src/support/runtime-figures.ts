import { createHistogram, type IntervalHistogram, monitorEventLoopDelay, type RecordableHistogram } from 'node:perf_hooks';

/**
 * What this process measured of its own write path since it started, logged once as it stops ("runtime figures",
 * docs/operations.md): how many units (a command's appends) shared each group commit of the embedded log, how long each commit held
 * the event loop, and how late the event loop ran its callbacks. Process-wide, like the event loop it describes:
 * every environment's log records into the same figures.
 */

const unitsPerCommit: RecordableHistogram = createHistogram();
const commitMicros: RecordableHistogram = createHistogram();
let loopDelay: IntervalHistogram | undefined;
/** How often the loop is sampled, in ms: each sample is the time between two timer callbacks, this interval included. */
const LOOP_SAMPLE_MS = 10;

/** One group commit of the embedded log: the units it held and how long it took, in ms (performance.now()). */
export function recordGroupCommit(units: number, elapsedMs: number): void {
  unitsPerCommit.record(units);
  commitMicros.record(Math.max(1, Math.round(elapsedMs * 1000)));
}

/** Starts sampling the event loop's delay; once per process. */
export function watchEventLoop(): void {
  loopDelay ??= monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loopDelay.enable();
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
/** A sample (ns between two timer callbacks) as the delay beyond the sampling interval, in ms. */
const lateBy = (nanoseconds: number) => round(Math.max(0, nanoseconds / 1e6 - LOOP_SAMPLE_MS));

/** The figures so far, as the stop log line carries them: times in ms. */
export function runtimeFigures() {
  return {
    groupCommits: {
      count: unitsPerCommit.count,
      unitsMean: unitsPerCommit.count === 0 ? 0 : round(unitsPerCommit.mean),
      unitsMax: unitsPerCommit.count === 0 ? 0 : unitsPerCommit.max,
      commitMsP50: round(commitMicros.count === 0 ? 0 : commitMicros.percentile(50) / 1000, 3),
      commitMsP99: round(commitMicros.count === 0 ? 0 : commitMicros.percentile(99) / 1000, 3),
    },
    ...(loopDelay === undefined
      ? {}
      : {
          eventLoopDelay: {
            msP50: lateBy(loopDelay.percentile(50)),
            msP99: lateBy(loopDelay.percentile(99)),
            msMax: lateBy(loopDelay.max),
          },
        }),
  };
}
