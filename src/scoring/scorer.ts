import { type Construct, canonicalOrder, type Family, intelligences, natures } from './constructs.js';
import { ITEM_COUNT, items } from './item-bank.js';
import type { Language } from './languages.js';
import { type Band, bandOf, NARRATIVE_VERSION, narrative } from './narratives-v1.js';
import { FRENCH_NARRATIVE_VERSION, frenchNarrative } from './narratives-v1-fr.js';
import { assessQuality, type ItemTiming, type Quality } from './quality.js';

/** The bands a narrative is written for: those of raw ≥ NARRATIVE_THRESHOLD. */
export type DescribedBand = Extract<Band, 'medium_high' | 'high' | 'very_high'>;

export interface Description {
  construct: Construct;
  band: DescribedBand;
  text: string;
}

/** A profile's scores, what the log keeps: per construct, 0.0..1.0, keys in alphabetical order. */
export interface Scores {
  natures: Record<string, number>;
  intelligences: Record<string, number>;
}

/** What a scorer makes: the scores, the version that made them, and how carefully the answers look given (never a score's input). */
export interface ScoredProfile extends Scores {
  scoring_version: string;
  quality: Quality;
}

/** The narratives of a profile, derived from its scores where it is shown (describeScores). */
export interface Descriptions {
  version: string;
  natures: Description[];
  intelligences: Description[];
}

const NARRATIVE_THRESHOLD = 7;
const MAX_DESCRIPTIONS = 3;

export type Scorer = (answers: Readonly<Record<string, number>>, timing?: Readonly<Record<string, ItemTiming>>) => ScoredProfile;

/**
 * The contract's scoring model under a scoring key (which construct each item counts toward): raw = (sum
 * of a construct's 4 answers) / 2, so 2..10 in steps of 0.5; score = (raw − 2) / 8, exact in binary.
 */
export function scorerFor(version: string, keyOf: (itemId: string) => Construct): Scorer {
  // The quality indicators belong to the version: its key groups the items they compare.
  return (answers, timing = {}) => ({ ...score(version, keyOf, answers), quality: assessQuality(answers, timing, keyOf) });
}

function score(
  version: string,
  keyOf: (itemId: string) => Construct,
  answers: Readonly<Record<string, number>>,
): Omit<ScoredProfile, 'quality'> {
  if (Object.keys(answers).length !== ITEM_COUNT) throw new Error(`scoring needs all ${ITEM_COUNT} answers`);
  const sums = new Map<Construct, number>();
  for (const item of items) {
    const value = answers[item.id];
    if (value === undefined || !Number.isInteger(value) || value < 1 || value > 5) throw new Error(`no valid answer for ${item.id}`);
    const construct = keyOf(item.id);
    sums.set(construct, (sums.get(construct) ?? 0) + value);
  }
  const raw = (construct: Construct) => sums.get(construct)! / 2;
  const scores = (family: readonly Construct[]) => Object.fromEntries(family.map((c) => [c, (raw(c) - 2) / 8]));
  return { scoring_version: version, natures: scores(natures), intelligences: scores(intelligences) };
}

/** The narratives in each language: the same rules, each with its own version. */
const narrators: Readonly<Record<Language, { version: string; narrative: typeof narrative }>> = {
  en: { version: NARRATIVE_VERSION, narrative },
  fr: { version: FRENCH_NARRATIVE_VERSION, narrative: frenchNarrative },
};

/**
 * The narratives of a profile's scores, in the assessment's language: what the scores alone decide (raw = score × 8 + 2, exact in binary), so
 * the log keeps the scores only and the narratives are derived where a profile is shown. They go to the raw ≥ 7
 * constructs of each family: at most 3, highest raw first, ties by the canonical order; returned alphabetically.
 */
export function describeScores(scores: Scores, language: Language): Descriptions {
  const narrator = narrators[language];
  const raw = (family: Family, construct: Construct) => scores[family][construct]! * 8 + 2;
  const described = (family: Family): Description[] =>
    [...canonicalOrder[family]]
      .filter((construct) => raw(family, construct) >= NARRATIVE_THRESHOLD)
      // A stable sort on raw alone keeps the canonical order among equal raws.
      .sort((a, b) => raw(family, b) - raw(family, a))
      .slice(0, MAX_DESCRIPTIONS)
      .sort((a, b) => (a < b ? -1 : 1))
      .map((construct) => {
        // Filtered to raw ≥ 7 above, which is medium_high or higher; narrative() refuses anything lower.
        const band = bandOf(raw(family, construct)) as DescribedBand;
        return { construct, band, text: narrator.narrative(family, construct, band) };
      });
  return { version: narrator.version, natures: described('natures'), intelligences: described('intelligences') };
}
