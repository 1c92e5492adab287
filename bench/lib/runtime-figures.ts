import type { runtimeFigures } from '../../src/support/runtime-figures.js';
import { ms, num } from './report.js';

/** The server's own figures (src/runtime-figures.ts), from the "runtime figures" line it logs as it stops. */
export type RuntimeFigures = ReturnType<typeof runtimeFigures>;

export function runtimeFiguresIn(log: string): RuntimeFigures | undefined {
  const line = log.split('\n').find((text) => text.includes('"msg":"runtime figures"'));
  return line === undefined ? undefined : (JSON.parse(line) as RuntimeFigures);
}

export const runtimeColumns = ['group commits', 'units per commit (mean / max)', 'commit p50 / p99', 'event-loop delay p50 / p99 / max'];

/**
 * The row those columns describe; dashes when the server logged no figures (it was killed, or predates them), and
 * in the group-commit columns for a log that makes none (the SQLite log's figures; a PostgreSQL log commits each append).
 */
export function runtimeRow(figures: RuntimeFigures | undefined): string[] {
  if (figures === undefined) return runtimeColumns.map(() => '—');
  const { groupCommits: commits, eventLoopDelay: loop } = figures;
  const grouped = commits.count > 0;
  return [
    grouped ? String(commits.count) : '—',
    grouped ? `${num(commits.unitsMean)} / ${commits.unitsMax}` : '—',
    grouped ? `${ms(commits.commitMsP50)} / ${ms(commits.commitMsP99)}` : '—',
    loop === undefined ? '—' : `${ms(loop.msP50)} / ${ms(loop.msP99)} / ${ms(loop.msMax)}`,
  ];
}
