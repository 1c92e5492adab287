import { constructs as all, type Construct } from '../scoring/constructs.js';
import { toThousandths } from '../support/thousandths.js';

/** The method a situational result names: the lexicons, the reading's rules, this formula and the narratives. */
export const SITUATIONAL_METHOD_VERSION = 'situational-v1';

/** A person's scores, 0..1 per construct, as a profile gives them. */
export type PersonScores = Record<Construct, number>;

export interface Alignment {
  /** The demand-weighted mean of the constructs' alignments, 0..1. */
  overall: number;
  /** Per construct, how far the person's score meets the situation's demand, 0..1. */
  constructs: Record<Construct, number>;
}

/**
 * How a profile meets a situation. Per construct: 1 − max(0, demand − score). A score at or above what the situation
 * asks meets it in full (more capacity than a situation needs is not a misfit); a shortfall costs what it falls short
 * by. A construct the situation does not draw on (demand 0) is met in full and, in `overall`, weighs nothing: overall
 * is the mean of the alignments weighted by demand. A reading with no demand at all has no alignment (the caller
 * refuses it as unclear first): this throws. Scores are the profile's, all 19 in 0..1: the caller's to give.
 */
export function alignmentOf(demand: Record<Construct, number>, scores: PersonScores): Alignment {
  const constructs = Object.fromEntries(all.map((c) => [c, toThousandths(1 - Math.max(0, demand[c] - scores[c]))])) as Record<
    Construct,
    number
  >;
  const weight = all.reduce((sum, c) => sum + demand[c], 0);
  if (weight === 0) throw new RangeError('a situation that draws on no construct has no alignment');
  const overall = all.reduce((sum, c) => sum + demand[c] * constructs[c], 0) / weight;
  return { overall: toThousandths(overall), constructs };
}
