import type { Construct } from './constructs.js';
import { items } from './item-bank.js';
import { type Scorer, scorerFor } from './scorer.js';

/** The construct each item is keyed to in the item bank (mn76-v1's key). */
const bankKey = new Map<string, Construct>(items.map((item) => [item.id, item.construct]));

/**
 * mn76-v2 corrects the v1 scoring key, in which the neighbouring items mn_056 and mn_057 were transposed:
 * mn_056 ("I think in pictures more than in words.") describes thinking in mental images, the mark of
 * visual-spatial intelligence, yet counted toward visual_graphic; mn_057 ("I am good at reading maps and
 * plans.") reads drawn documents, a visual-graphic skill, yet counted toward visual_spatial. v2 keys each
 * to the other construct; every construct keeps four items, so the model is otherwise unchanged.
 */
const v2Corrections: ReadonlyMap<string, Construct> = new Map([
  ['mn_056', 'visual_spatial'],
  ['mn_057', 'visual_graphic'],
]);

/** Every scorer by version, oldest first; a profile records the version that made it. */
export const scorers: Readonly<Record<string, Scorer>> = {
  'mn76-v1': scorerFor('mn76-v1', (id) => bankKey.get(id)!),
  'mn76-v2': scorerFor('mn76-v2', (id) => v2Corrections.get(id) ?? bankKey.get(id)!),
};

export const scoringVersions = Object.keys(scorers) as [string, ...string[]];

/** What new completions are scored with unless NATURE_SCORING_VERSION says otherwise. */
export const NEWEST_SCORING_VERSION = scoringVersions.at(-1)!;
