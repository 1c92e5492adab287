import { toThousandths } from '../support/thousandths.js';
import type { Construct } from './constructs.js';
import { items } from './item-bank.js';

/** When and how fast a person answered one item, as the caller reported it (both optional). */
export interface ItemTiming {
  answered_at?: string;
  response_time_ms?: number;
}

export interface Indicator {
  /** Null when the indicator needs timing and none was sent. */
  value: number | null;
  threshold: number;
  flagged: boolean;
}

export const indicatorNames = [
  'longest_identical_run',
  'response_variability',
  'construct_inconsistency',
  'too_fast_share',
  'completion_seconds',
] as const;
export type IndicatorName = (typeof indicatorNames)[number];

/**
 * Indicators of careless responding (docs/quality.md cites their sources). They describe how a profile was
 * answered and never change its scores; a flag is a reason to look, not a verdict.
 */
export interface Quality {
  version: string;
  flagged: boolean;
  /** The flagged indicators, in the order of `indicatorNames`. */
  reasons: IndicatorName[];
  indicators: Record<IndicatorName, Indicator>;
}

/**
 * The indicators' thresholds: constants of the scoring versions that use them (docs/quality.md gives each its source).
 * quality-v2 is quality-v1 with `tooFastMinTimed`: v1 judged too_fast_share from any number of timed items, so one
 * fast answer among one timed one flagged a whole profile.
 */
export const QUALITY = {
  version: 'quality-v2',
  /**
   * Flagged at this many identical answers in a row, or more (Johnson 2005: the long-string index): a fifth of the
   * items. Persons simulated as attentive but high on everything (answers of 4 and 5) reach 9 in 95 of 100 cases.
   */
  longestIdenticalRun: 15,
  /** Flagged below this SD of the 76 answers (Dunn et al. 2018: intra-individual response variability). */
  responseVariability: 0.35,
  /** Flagged above this pooled within-construct SD (√2 ≈ 1.41 is expected of uniform random answers). */
  constructInconsistency: 1.1,
  /** An item answered in under this many ms counts as too fast (Huang et al. 2012; Curran 2016). */
  tooFastMs: 1000,
  /** Flagged when this share of timed items, or more, were too fast. */
  tooFastShare: 0.2,
  /** too_fast_share is null with fewer timed items than this (a quarter of the bank): too few to tell a habit from a glance. */
  tooFastMinTimed: 19,
  /** Flagged when the first-to-last span is shorter than this (about 1.6 s per item). */
  completionSeconds: 120,
} as const;

/** The longest run of one answer in item order (mn_001..mn_076). */
export function longestIdenticalRun(values: readonly number[]): number {
  let longest = 0;
  let run = 0;
  values.forEach((value, index) => {
    run = index > 0 && value === values[index - 1] ? run + 1 : 1;
    longest = Math.max(longest, run);
  });
  return longest;
}

/** The sample variance (n − 1) of the values. */
function variance(values: readonly number[]): number {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
}

/** Intra-individual response variability: the sample SD of all the answers. */
export function responseVariability(values: readonly number[]): number {
  return Math.sqrt(variance(values));
}

/**
 * The pooled within-construct SD: the root of the mean, over constructs, of the sample variance of each
 * construct's answers. It reads agreement within constructs only, so a person high on everything is not flagged.
 */
export function constructInconsistency(answers: Readonly<Record<string, number>>, keyOf: (itemId: string) => Construct): number {
  const byConstruct = new Map<Construct, number[]>();
  for (const item of items) {
    const construct = keyOf(item.id);
    byConstruct.set(construct, [...(byConstruct.get(construct) ?? []), answers[item.id]!]);
  }
  const variances = [...byConstruct.values()].map(variance);
  return Math.sqrt(variances.reduce((sum, each) => sum + each, 0) / variances.length);
}

/** Each timed item's time in ms: its response_time_ms, else the gap since the answer before it in time. */
function itemTimes(timing: Readonly<Record<string, ItemTiming>>): number[] {
  const stamped = Object.entries(timing)
    .filter(([, each]) => each.answered_at !== undefined)
    .map(([itemId, each]) => [itemId, Date.parse(each.answered_at!)] as const)
    .sort((a, b) => a[1] - b[1]);
  const gaps = new Map(stamped.slice(1).map(([itemId, at], index) => [itemId, at - stamped[index]![1]]));
  return items.flatMap((item) => {
    const ms = timing[item.id]?.response_time_ms ?? gaps.get(item.id);
    return ms === undefined ? [] : [ms];
  });
}

/** The share of timed items answered faster than `fastMs`; null when fewer than `minTimed` (at least 1) are timed. */
export function tooFastShare(timing: Readonly<Record<string, ItemTiming>>, fastMs: number, minTimed: number): number | null {
  const times = itemTimes(timing);
  return times.length < Math.max(minTimed, 1) ? null : times.filter((ms) => ms < fastMs).length / times.length;
}

/**
 * Seconds from the first answer to the last when every answer has its answered_at, else the sum of every
 * response_time_ms when every answer has one, else null: a span over some answers only would look rushed.
 */
export function completionSeconds(timing: Readonly<Record<string, ItemTiming>>): number | null {
  const stamps = items.map((item) => timing[item.id]?.answered_at);
  if (stamps.every((at) => at !== undefined)) {
    const times = stamps.map((at) => Date.parse(at!));
    return (Math.max(...times) - Math.min(...times)) / 1000;
  }
  const times = items.map((item) => timing[item.id]?.response_time_ms);
  return times.every((ms) => ms !== undefined) ? times.reduce((sum, ms) => sum + ms!, 0) / 1000 : null;
}

/** The quality of a complete set of answers, with the scoring version's key and whatever timing came with them. */
export function assessQuality(
  answers: Readonly<Record<string, number>>,
  timing: Readonly<Record<string, ItemTiming>>,
  keyOf: (itemId: string) => Construct,
): Quality {
  const t = QUALITY;
  const values = items.map((item) => answers[item.id]!);
  /** The value, rounded as shown, with its threshold; flagged as `beyond` says (never when there is no value). */
  const indicator = (value: number | null, threshold: number, beyond: (value: number, threshold: number) => boolean): Indicator => {
    const shown = value === null ? null : toThousandths(value);
    return { value: shown, threshold, flagged: shown !== null && beyond(shown, threshold) };
  };
  const atLeast = (value: number, threshold: number) => value >= threshold;
  const below = (value: number, threshold: number) => value < threshold;
  const indicators: Record<IndicatorName, Indicator> = {
    longest_identical_run: indicator(longestIdenticalRun(values), t.longestIdenticalRun, atLeast),
    response_variability: indicator(responseVariability(values), t.responseVariability, below),
    construct_inconsistency: indicator(
      constructInconsistency(answers, keyOf),
      t.constructInconsistency,
      (value, threshold) => value > threshold,
    ),
    too_fast_share: indicator(tooFastShare(timing, t.tooFastMs, t.tooFastMinTimed), t.tooFastShare, atLeast),
    completion_seconds: indicator(completionSeconds(timing), t.completionSeconds, below),
  };
  const reasons = indicatorNames.filter((name) => indicators[name].flagged);
  return { version: t.version, flagged: reasons.length > 0, reasons, indicators };
}
