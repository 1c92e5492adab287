import { type Construct, canonicalOrder, type Family, intelligences, natures } from './constructs.js';
import { ITEM_COUNT, items } from './item-bank.js';
import { type Band, bandOf, NARRATIVE_VERSION, narrative } from './narratives-v1.js';

export interface Description {
  construct: Construct;
  band: Band;
  text: string;
}

export interface ScoredProfile {
  scoring_version: string;
  /** Score per construct, 0.0..1.0, keys in alphabetical order. */
  natures: Record<string, number>;
  intelligences: Record<string, number>;
  descriptions: { version: string; natures: Description[]; intelligences: Description[] };
}

const NARRATIVE_THRESHOLD = 7;
const MAX_DESCRIPTIONS = 3;

export type Scorer = (answers: Readonly<Record<string, number>>) => ScoredProfile;

/**
 * The contract's scoring model under a scoring key (which construct each item counts toward): raw = (sum
 * of a construct's 4 answers) / 2, so 2..10 in steps of 0.5; score = (raw − 2) / 8, exact in binary.
 * Narratives go to the raw ≥ 7 constructs of each family: at most 3, highest raw first, ties by the
 * canonical order; they are returned alphabetically.
 */
export function scorerFor(version: string, keyOf: (itemId: string) => Construct): Scorer {
  return (answers) => score(version, keyOf, answers);
}

function score(version: string, keyOf: (itemId: string) => Construct, answers: Readonly<Record<string, number>>): ScoredProfile {
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

  const described = (family: Family): Description[] =>
    [...canonicalOrder[family]]
      .filter((construct) => raw(construct) >= NARRATIVE_THRESHOLD)
      // A stable sort on raw alone keeps the canonical order among equal raws.
      .sort((a, b) => raw(b) - raw(a))
      .slice(0, MAX_DESCRIPTIONS)
      .sort((a, b) => (a < b ? -1 : 1))
      .map((construct) => {
        const band = bandOf(raw(construct));
        return { construct, band, text: narrative(family, construct, band) };
      });

  return {
    scoring_version: version,
    natures: scores(natures),
    intelligences: scores(intelligences),
    descriptions: { version: NARRATIVE_VERSION, natures: described('natures'), intelligences: described('intelligences') },
  };
}
