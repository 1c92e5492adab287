import { type Intelligence, intelligences, type Nature, natures } from '../scoring/constructs.js';
import { compareCodeUnits } from '../support/code-units.js';
import type { Catalogue, ConstructContribution, ConstructProfile, MatchOptions, Occupation, OccupationMatch } from './catalogue.js';

/**
 * Matching a person's profile against the occupations' demand profiles by centred cosine (Pearson correlation over
 * the 19 constructs): the person's scores minus their own mean against the occupation's demands minus its own mean.
 * So what counts is the shape of each profile — which constructs stand out — not its level: a person who scores
 * everything high is not a better fit for everything, and an occupation that needs a little of everything is not
 * everyone's match. A construct the person is low on counts as much as one they are high on: low where the occupation
 * needs little adds to the fit, low where it needs much takes from it.
 *
 * fit = (r + 1) / 2, so 0.5 is "no relation", and each construct's `contribution` is its term of r halved: the
 * contributions sum to fit − 0.5 (give or take rounding). A profile whose scores are all equal has no shape: every
 * occupation gets fit 0.5 with contributions 0, and the order is by code alone — visibly not a ranking.
 * Chosen over a demand-weighted distance and a plain dot product by the archetypes of test/careers
 * (docs/careers-matching.md).
 */

const WIDTH = natures.length + intelligences.length;

function vectorOf(profile: ConstructProfile): Float64Array {
  const out = new Float64Array(WIDTH);
  natures.forEach((name, i) => {
    out[i] = profile.natures[name];
  });
  intelligences.forEach((name, i) => {
    out[natures.length + i] = profile.intelligences[name];
  });
  return out;
}

/** The profile minus its mean, scaled to length 1; all zeros when the profile is flat (it has no direction). */
function unitCentred(values: Float64Array): Float64Array {
  let mean = 0;
  for (const v of values) mean += v / values.length;
  const out = values.map((v) => v - mean);
  let norm = 0;
  for (const v of out) norm += v * v;
  norm = Math.sqrt(norm);
  // Scores carry 4 decimals; below this the spread is rounding noise, not a shape.
  return norm < 1e-6 ? out.fill(0) : out.map((v) => v / norm);
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

function explain(
  person: ConstructProfile,
  demand: ConstructProfile,
  personUnit: Float64Array,
  demandUnit: Float64Array,
): OccupationMatch['explanation'] {
  const term = (at: number, personScore: number, demandScore: number): ConstructContribution => ({
    person: personScore,
    demand: demandScore,
    // + 0 turns a rounded -0 into 0.
    contribution: round((personUnit[at]! * demandUnit[at]!) / 2) + 0,
  });
  return {
    natures: Object.fromEntries(natures.map((name, i) => [name, term(i, person.natures[name], demand.natures[name])])) as Record<
      Nature,
      ConstructContribution
    >,
    intelligences: Object.fromEntries(
      intelligences.map((name, i) => [name, term(natures.length + i, person.intelligences[name], demand.intelligences[name])]),
    ) as Record<Intelligence, ConstructContribution>,
  };
}

/**
 * A matcher over the catalogue's profiled occupations; their centred demand vectors are computed once here, so a
 * match is one pass of 19 multiplications per occupation, a sort, and explanations for the few returned.
 */
export function occupationMatcher(catalogue: Catalogue): (person: ConstructProfile, options: MatchOptions) => OccupationMatch[] {
  const profiled = catalogue.occupations
    .filter((occupation): occupation is Occupation & { profile: ConstructProfile } => occupation.profile !== null)
    .sort((a, b) => compareCodeUnits(a.code, b.code));
  const demands = profiled.map((occupation) => unitCentred(vectorOf(occupation.profile)));
  return (person, options) => {
    const unit = unitCentred(vectorOf(person));
    const zones = options.jobZones === undefined ? undefined : new Set(options.jobZones);
    const fits = new Float64Array(profiled.length);
    const candidates: number[] = [];
    for (let i = 0; i < profiled.length; i++) {
      const zone = profiled[i]!.jobZone;
      if (zones !== undefined && (zone === null || !zones.has(zone))) continue;
      const demand = demands[i]!;
      let r = 0;
      for (let c = 0; c < WIDTH; c++) r += unit[c]! * demand[c]!;
      // Rounded before sorting, so occupations that show the same fit are ordered by code, as the contract says.
      fits[i] = round((Math.min(1, Math.max(-1, r)) + 1) / 2);
      candidates.push(i);
    }
    // Index order is code order, so the tie-break by code is a tie-break by index.
    candidates.sort((a, b) => fits[b]! - fits[a]! || a - b);
    return candidates.slice(0, options.limit).map((i) => ({
      occupation: profiled[i]!,
      fit: fits[i]!,
      explanation: explain(person, profiled[i]!.profile, unit, demands[i]!),
    }));
  };
}
