import { SCORING_VERSION, type ScoredProfile, scoreV1 } from './scorer-v1.js';

export type Scorer = (answers: Readonly<Record<string, number>>) => ScoredProfile;

/** Every scorer by version; a profile records the version that made it. */
export const scorers: Readonly<Record<string, Scorer>> = { [SCORING_VERSION]: scoreV1 };

export const CURRENT_SCORING_VERSION = SCORING_VERSION;
