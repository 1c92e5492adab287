import { parseArgs } from 'node:util';
import { formatCrashReport, runCrashSuite } from './crash-suite.js';

/**
 * The crash suite at any size, one command:
 *   npm run crash -- --assessments 500 --kills 10 [--concurrency 16] [--seed N] [--keep] [--idempotency-keys]
 * Defaults come from CRASH_ASSESSMENTS, CRASH_KILLS, CRASH_CONCURRENCY and CRASH_SEED, else 500, 10, 16.
 * Prints the same figures as the CI run; exits 1 when a check fails.
 */
const { values } = parseArgs({
  options: {
    assessments: { type: 'string' },
    kills: { type: 'string' },
    concurrency: { type: 'string' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'idempotency-keys': { type: 'boolean', default: false },
  },
});

function whole(name: string, given: string | undefined, fallback: number): number {
  const text = given ?? fallback.toString();
  if (!/^\d+$/.test(text)) {
    process.stderr.write(`crash: --${name} must be a whole number, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return Number(text);
}

const options = {
  assessments: whole('assessments', values.assessments ?? process.env.CRASH_ASSESSMENTS, 500),
  kills: whole('kills', values.kills ?? process.env.CRASH_KILLS, 10),
  concurrency: whole('concurrency', values.concurrency ?? process.env.CRASH_CONCURRENCY, 16),
  keepData: values.keep,
  idempotencyKeys: values['idempotency-keys'],
  progress: (line: string) => process.stderr.write(`${line}\n`),
};
const seed = values.seed ?? process.env.CRASH_SEED;
const report = await runCrashSuite({ ...options, ...(seed !== undefined && { seed: whole('seed', seed, 0) }) });
process.stdout.write(`${formatCrashReport(report)}\n`);
process.exit(report.failures.length === 0 ? 0 : 1);
