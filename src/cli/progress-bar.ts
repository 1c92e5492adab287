import { Presets, SingleBar } from 'cli-progress';

/** Where a long operator command stands: its phase (a label), and how many of its `unit` are done. */
export interface Progress {
  phase: string;
  done: number;
  total: number;
}

/**
 * A progress bar with rate and ETA on stderr, one bar per phase: drawn in place on a terminal, and printed as a plain
 * line every few seconds otherwise (CI logs, pipes).
 */
export function progressBar(stream: NodeJS.WritableStream, unit: string): { update(progress: Progress): void; stop(): void } {
  const bar = new SingleBar(
    {
      stream,
      format: `{phase} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted}`,
      noTTYOutput: true,
      notTTYSchedule: 2000,
      etaBuffer: 200,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  let phase: string | undefined;
  let phaseStart = Date.now();
  return {
    update(progress) {
      if (progress.phase !== phase) {
        if (phase !== undefined) bar.stop();
        phase = progress.phase;
        phaseStart = Date.now();
        bar.start(progress.total, 0, { phase, rate: '0' });
      }
      const rate = progress.done / Math.max((Date.now() - phaseStart) / 1000, 0.001);
      bar.setTotal(progress.total);
      bar.update(progress.done, { phase: progress.phase, rate: rate.toFixed(0) });
    },
    stop() {
      if (phase !== undefined) bar.stop();
    },
  };
}
