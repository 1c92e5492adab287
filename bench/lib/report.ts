import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import type { CpuSample } from './load.js';
import { root } from './paths.js';

/** The median of samples (the mean of the middle two for an even count); NaN when there are none. */
export function median(samples: readonly number[]): number {
  const sorted = samples.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The q-quantile (0..1) of samples by nearest rank. */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = samples.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A rate or count with precision that suits its size: 12 345, 123, 12.3, 1.23. */
export function num(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).replaceAll(',', ' ');
}

/** Milliseconds, to a precision that suits their size. */
export function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ms`;
}

export function ratio(numerator: number | undefined, denominator: number | undefined): string {
  if (numerator === undefined || denominator === undefined || !Number.isFinite(numerator / denominator)) return '—';
  const value = numerator / denominator;
  if (value >= 100) return `${value.toFixed(0)}×`;
  if (value >= 10) return `${value.toFixed(1)}×`;
  return value >= 0.1 ? value.toFixed(2) : value.toFixed(3);
}

export function megabytes(kilobytes: number | undefined): string {
  return kilobytes === undefined ? '—' : `${(kilobytes / 1024).toFixed(0)} MB`;
}

/** A GitHub-flavoured markdown table, columns padded so it reads in a terminal and pastes as is. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function sh(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * What a reader needs to compare two runs: the machine, its load now, the Node version and the code
 * measured (the commit, and whether src/ or projections/ differ from it: others land speed-ups there).
 */
export function machineLine(): string {
  const cores = sh('nproc', []) ?? String(availableParallelism());
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  // BENCH_COMMIT names the code when it is not a git checkout (an export of a commit, say).
  const commit = process.env.BENCH_COMMIT ?? sh('git', ['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  // --no-optional-locks: a benchmark must not even refresh the index of the checkout it measures.
  const changed =
    process.env.BENCH_COMMIT === undefined && sh('git', ['--no-optional-locks', 'status', '--porcelain', '--', 'src', 'projections']);
  const dirty = changed ? ' + uncommitted changes in src/' : '';
  return `nproc ${cores} · load ${load} · Node ${process.version} · commit ${commit}${dirty} · ${new Date().toISOString().slice(0, 16)}Z`;
}

/** The heading every benchmark prints before its table. */
export function heading(title: string, details: string): string {
  return `### ${title}\n\n${machineLine()}  \n${details}\n`;
}

/** The columns of a route's row in the HTTP tables, after its label: medians over the rounds' samples. */
export const routeHeader = ['route', 'req/s', 'server CPU per request', 'p50', 'p99', 'non-2xx / errors'];

export function routeColumns(samples: readonly CpuSample[]): string[] {
  const cpu = median(samples.map((sample) => sample.cpuMicrosPerRequest));
  return [
    num(median(samples.map((sample) => sample.perSecond))),
    Number.isFinite(cpu) ? `${num(cpu)} µs` : '—',
    ms(median(samples.map((sample) => sample.p50))),
    ms(median(samples.map((sample) => sample.p99))),
    `${samples.reduce((sum, sample) => sum + sample.non2xx, 0)} / ${samples.reduce((sum, sample) => sum + sample.errors, 0)}`,
  ];
}
