import { describe, expect, it } from 'vitest';
import { formatCrashReport, runCrashSuite } from './crash-suite.js';

/**
 * The crash suite at CI size. The large size runs on demand with the same code and the same figures:
 * `npm run crash -- --assessments 500 --kills 10` (see CONTRIBUTING.md, "Crash and fuzz suites").
 */
describe('crash suite (small)', () => {
  it('loses no acknowledged write, scores each completion once and delivers it signed, across SIGKILLs', { timeout: 180_000 }, async () => {
    const report = await runCrashSuite({ assessments: 24, kills: 3, concurrency: 6 });
    console.log(formatCrashReport(report));
    expect(report.failures).toEqual([]);
  });

  it('answers every retry of a write sent with an Idempotency-Key with its first 2xx, never a 409 of its own making, across SIGKILLs', {
    timeout: 300_000,
  }, async () => {
    // About 300 keyed writes of every kind (and each sent once more, to compare its replay).
    const report = await runCrashSuite({ assessments: 36, kills: 8, concurrency: 8, idempotencyKeys: true });
    console.log(formatCrashReport(report));
    expect(report.failures).toEqual([]);
  });
});
