import { describe, expect, it } from 'vitest';
import type { Construct } from '../../src/scoring/constructs.js';
import { items } from '../../src/scoring/item-bank.js';
import {
  completionSeconds,
  constructInconsistency,
  type ItemTiming,
  longestIdenticalRun,
  QUALITY,
  responseVariability,
  tooFastShare,
} from '../../src/scoring/quality.js';
import { scorers } from '../../src/scoring/scorers.js';
import { seeded } from '../support/seeded.js';

const keyOf = (id: string) => items.find((item) => item.id === id)!.construct;
const score = scorers['mn76-v2']!;

const clamp = (value: number) => Math.min(5, Math.max(1, value));
const byItem = (value: (index: number, construct: Construct) => number) =>
  Object.fromEntries(items.map((item, index) => [item.id, value(index, item.construct)]));

/** A person who answers with care: a level per construct, items of it within one step of it. */
function attentive(seed: number, levels: readonly number[] = [1, 2, 3, 4, 5]) {
  const next = seeded(seed);
  const level = new Map<Construct, number>();
  return byItem((_, construct) => {
    if (!level.has(construct)) level.set(construct, levels[Math.floor(next() * levels.length)]!);
    const noise = [-1, 0, 0, 1][Math.floor(next() * 4)]!;
    return clamp(level.get(construct)! + noise);
  });
}

/** Timing `ms` apart per item (with a little jitter when `jitterMs`), as the component sends it. */
function paced(seed: number, ms: number, jitterMs = 0): Record<string, ItemTiming> {
  const next = seeded(seed);
  let at = Date.UTC(2026, 10, 24, 10, 0, 0);
  return Object.fromEntries(
    items.map((item) => {
      const took = Math.round(ms + next() * jitterMs);
      at += took;
      return [item.id, { answered_at: new Date(at).toISOString(), response_time_ms: took }];
    }),
  );
}

describe('each indicator, with values worked out by hand', () => {
  it('longest_identical_run: the longest run of one answer in item order', () => {
    expect(longestIdenticalRun([1, 1, 2, 2, 2, 3])).toBe(3);
    expect(longestIdenticalRun([5])).toBe(1);
    expect(longestIdenticalRun([1, 2, 1, 2])).toBe(1);
    expect(longestIdenticalRun(Array(76).fill(3))).toBe(76);
  });

  it('response_variability: the sample standard deviation of the answers', () => {
    // mean 3, squared deviations 4+1+0+1+4 = 10, over n − 1 = 4: 2.5.
    expect(responseVariability([1, 2, 3, 4, 5])).toBeCloseTo(Math.sqrt(2.5), 12);
    expect(responseVariability([3, 3, 3])).toBe(0);
  });

  it('construct_inconsistency: the pooled standard deviation within constructs', () => {
    // Every construct's four items answered 2, 2, 4, 4 (in bank order): variance 4 × 1 / 3 each, so √(4/3).
    const seen = new Map<Construct, number>();
    const answers = byItem((_, construct) => {
      const count = seen.get(construct) ?? 0;
      seen.set(construct, count + 1);
      return count < 2 ? 2 : 4;
    });
    expect(constructInconsistency(answers, keyOf)).toBeCloseTo(Math.sqrt(4 / 3), 12);
    // Every construct's items agree, however far apart the constructs are: 0.
    expect(
      constructInconsistency(
        byItem((_, construct) => (construct.length % 5) + 1),
        keyOf,
      ),
    ).toBe(0);
  });

  it('too_fast_share: timed items under 1 s, by response_time_ms, else by the gap since the answer before', () => {
    const timing: Record<string, ItemTiming> = {};
    for (const item of items.slice(0, 10)) timing[item.id] = { response_time_ms: 500 };
    for (const item of items.slice(10, 40)) timing[item.id] = { response_time_ms: 2000 };
    expect(tooFastShare(timing, 1000, 19)).toBe(0.25);
    // Gaps: the first answer has none, the second came 0.5 s later (fast), the third 2.5 s after that.
    const stamped = {
      mn_001: { answered_at: '2026-11-24T10:00:00.000Z' },
      mn_002: { answered_at: '2026-11-24T10:00:00.500Z' },
      mn_003: { answered_at: '2026-11-24T10:00:03.000Z' },
    };
    expect(tooFastShare(stamped, 1000, 1)).toBe(0.5);
    expect(tooFastShare({}, 1000, 0)).toBeNull();
  });

  it('too_fast_share needs 19 timed items (a quarter of the bank): one fast answer alone flags nothing', () => {
    const one = { mn_001: { response_time_ms: 300 } };
    expect(score(attentive(1), one).quality.indicators.too_fast_share).toEqual({ value: null, threshold: 0.2, flagged: false });
    expect(tooFastShare(one, 1000, QUALITY.tooFastMinTimed)).toBeNull();
    const timed = (count: number) => Object.fromEntries(items.slice(0, count).map((item) => [item.id, { response_time_ms: 300 }]));
    expect(score(attentive(1), timed(18)).quality.indicators.too_fast_share.value).toBeNull();
    expect(score(attentive(1), timed(19)).quality.indicators.too_fast_share).toEqual({ value: 1, threshold: 0.2, flagged: true });
    expect(score(attentive(1)).quality.version).toBe('quality-v2');
  });

  it('completion_seconds: first answer to last, else the sum of every response_time_ms, else null', () => {
    // Every answer stamped, the first at 10:00:00 and the last at 10:05:00: 300 s.
    const stamped = Object.fromEntries(
      items.map((item, index) => [
        item.id,
        { answered_at: new Date(Date.UTC(2026, 10, 24, 10, 0, 0) + (index * 300_000) / 75).toISOString() },
      ]),
    );
    expect(completionSeconds(stamped)).toBe(300);
    // Some answers without a stamp (sent by an older page): no span, and no sum either without every response_time_ms.
    const { mn_001: _unstamped, ...partial } = stamped;
    expect(completionSeconds(partial)).toBeNull();
    expect(completionSeconds(Object.fromEntries(items.map((item) => [item.id, { response_time_ms: 1000 }])))).toBe(76);
    expect(completionSeconds({ mn_001: { response_time_ms: 1000 } })).toBeNull();
    expect(completionSeconds({})).toBeNull();
  });
});

describe('answer patterns with known truth', () => {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];

  it.each(seeds)('an attentive, human-paced person (seed %i) is not flagged', (seed) => {
    const { quality } = score(attentive(seed), paced(seed, 3000, 6000));
    expect(quality.reasons).toEqual([]);
    expect(quality.flagged).toBe(false);
  });

  it.each(seeds)('an attentive person who is simply high on everything (seed %i) is not flagged', (seed) => {
    const { quality, natures } = score(attentive(seed, [4, 5]), paced(seed, 3000, 6000));
    expect(Object.values(natures).every((value) => value >= 0.5)).toBe(true);
    expect(quality.reasons).toEqual([]);
  });

  it('straight-lining (all 3s) is flagged for its run and its lack of variation, not for inconsistency', () => {
    const { quality } = score(byItem(() => 3));
    expect(quality.reasons).toEqual(['longest_identical_run', 'response_variability']);
    expect(quality.indicators.longest_identical_run).toEqual({ value: 76, threshold: 15, flagged: true });
    expect(quality.indicators.response_variability).toEqual({ value: 0, threshold: 0.35, flagged: true });
    expect(quality.indicators.construct_inconsistency.value).toBe(0);
  });

  it('alternating 1 and 5 is flagged as inconsistent: each construct gets 1, 5, 1, 5', () => {
    // mn76-v1's key: every construct's items sit 19 apart, so their answers alternate too.
    const { quality } = scorers['mn76-v1']!(byItem((index) => (index % 2 === 0 ? 1 : 5)));
    expect(quality.reasons).toEqual(['construct_inconsistency']);
    // Four answers 1, 5, 1, 5: variance 4 × 4 / 3, so √(16/3) ≈ 2.309.
    expect(quality.indicators.construct_inconsistency.value).toBe(2.309);
  });

  it.each(seeds)('uniform random answers (seed %i) are flagged as inconsistent', (seed) => {
    const next = seeded(seed);
    const { quality } = score(byItem(() => 1 + Math.floor(next() * 5)));
    expect(quality.reasons).toContain('construct_inconsistency');
    expect(quality.reasons).not.toContain('response_variability');
  });

  it('speeding (200 ms per item) is flagged by its timing alone', () => {
    const { quality } = score(attentive(1), paced(1, 200));
    expect(quality.reasons).toEqual(['too_fast_share', 'completion_seconds']);
    expect(quality.indicators.too_fast_share.value).toBe(1);
    expect(quality.indicators.completion_seconds.value).toBe(15);
  });

  it('without timing, the timing indicators are null and never flagged', () => {
    const { quality } = score(attentive(1));
    expect(quality.indicators.too_fast_share).toEqual({ value: null, threshold: 0.2, flagged: false });
    expect(quality.indicators.completion_seconds).toEqual({ value: null, threshold: 120, flagged: false });
  });

  it('never changes a score: the same answers score the same with any timing', () => {
    const answers = attentive(3);
    const { quality: _fast, ...fast } = score(answers, paced(3, 200));
    const { quality: _none, ...none } = score(answers);
    expect(fast).toEqual(none);
  });
});
