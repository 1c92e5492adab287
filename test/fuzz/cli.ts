import { parseArgs } from 'node:util';
import { formatFuzzReport, runFuzzSuite } from './fuzz-suite.js';

/**
 * The fuzz suite at any size, one command:
 *   npm run fuzz -- --runs 200 [--seed N] [--only "body: syntax POST /subjects"]
 * Defaults come from FUZZ_RUNS, FUZZ_SEED and FUZZ_ONLY, else 200 runs per property.
 * Prints the same figures as the CI run, and every failing property with its shrunk request; exits 1 on a failure.
 */
const { values } = parseArgs({ options: { runs: { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' } } });

function whole(name: string, text: string): number {
  if (!/^\d+$/.test(text)) {
    process.stderr.write(`fuzz: --${name} must be a whole number, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return Number(text);
}

const seed = values.seed ?? process.env.FUZZ_SEED;
const only = values.only ?? process.env.FUZZ_ONLY;
const report = await runFuzzSuite({
  runs: whole('runs', values.runs ?? process.env.FUZZ_RUNS ?? '200'),
  ...(seed !== undefined && { seed: whole('seed', seed) }),
  ...(only !== undefined && { only }),
  progress: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${formatFuzzReport(report)}\n`);
process.exit(report.failures.length === 0 ? 0 : 1);
