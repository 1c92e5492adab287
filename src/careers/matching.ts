import type { Catalogue, ConstructContribution, ConstructProfile, MatchOptions, OccupationMatch } from './catalogue.js';

// STAND-IN for helper 1's matching (issue 43, MAPPING part): same signature, minimal behaviour (centred cosine,
// fit = 0.5 + 0.5 cos, each construct's contribution its share of 0.5 cos). The merge keeps the owner's file.

type Family = keyof ConstructProfile;
const families: Family[] = ['natures', 'intelligences'];

const valuesOf = (profile: ConstructProfile) => families.flatMap((family) => Object.values(profile[family]));
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const norm = (values: number[], centre: number) => Math.sqrt(values.reduce((sum, value) => sum + (value - centre) ** 2, 0));

/** Occupations by fit to a person's profile, highest first, ties by code. */
export function occupationMatcher(catalogue: Catalogue): (person: ConstructProfile, options: MatchOptions) => OccupationMatch[] {
  const profiled = catalogue.occupations.filter((occupation) => occupation.profile !== null);
  return (person, { jobZones, limit }) => {
    const personValues = valuesOf(person);
    const personMean = mean(personValues);
    const personNorm = norm(personValues, personMean);
    const matches = profiled
      .filter((occupation) => jobZones === undefined || (occupation.jobZone !== null && jobZones.includes(occupation.jobZone)))
      .map((occupation): OccupationMatch => {
        const demand = occupation.profile!;
        const demandMean = mean(valuesOf(demand));
        const scale = personNorm * norm(valuesOf(demand), demandMean);
        const explain = <K extends string>(family: Record<K, number>, demands: Record<K, number>) =>
          Object.fromEntries(
            Object.entries<number>(family).map(([name, score]) => {
              const need = demands[name as K];
              const share = scale === 0 ? 0 : (0.5 * (score - personMean) * (need - demandMean)) / scale;
              return [name, { person: score, demand: need, contribution: share } satisfies ConstructContribution];
            }),
          ) as Record<K, ConstructContribution>;
        const explanation = {
          natures: explain(person.natures, demand.natures),
          intelligences: explain(person.intelligences, demand.intelligences),
        };
        const fit =
          0.5 +
          families.reduce(
            (sum, family) => sum + Object.values<ConstructContribution>(explanation[family]).reduce((s, c) => s + c.contribution, 0),
            0,
          );
        return { occupation, fit: Math.min(1, Math.max(0, fit)), explanation };
      });
    return matches.sort((a, b) => b.fit - a.fit || a.occupation.code.localeCompare(b.occupation.code)).slice(0, limit);
  };
}
