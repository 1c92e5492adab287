import { parseArgs } from 'node:util';

export interface Options {
  /** Smaller and shorter everything: a smoke run, not figures to quote. */
  quick: boolean;
  /** Interleaved rounds; each figure is the median over them. */
  rounds: number;
  /** Whether the rounds were asked for (then a benchmark runs exactly that many). */
  roundsGiven: boolean;
}

/**
 * `--quick` (or BENCH_QUICK=1) and `--rounds N` (or BENCH_ROUNDS), shared by every benchmark; unknown
 * flags are refused so a typo does not silently run the default size.
 */
export function readOptions(): Options {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, rounds: { type: 'string' }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    console.log('options: --quick (or BENCH_QUICK=1) for a short smoke run; --rounds N (or BENCH_ROUNDS=N), default 3 (1 with --quick)');
    process.exit(0);
  }
  const quick = values.quick || process.env.BENCH_QUICK === '1';
  const rounds = Number(values.rounds ?? process.env.BENCH_ROUNDS ?? (quick ? 1 : 3));
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a whole number ≥ 1, got ${String(values.rounds ?? process.env.BENCH_ROUNDS)}`);
  return { quick, rounds, roundsGiven: (values.rounds ?? process.env.BENCH_ROUNDS) !== undefined };
}
