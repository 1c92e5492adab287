import type { Language } from '../scoring/languages.js';
import { SITUATIONAL_METHOD_VERSION } from './alignment.js';
import { analyseSituation, type ProfileScores, type SituationalOutcome } from './analysis.js';

/** Every method a situation can be read with, by version: a rebuild reads outcomes again with one of them. */
export const situationalMethods: Readonly<
  Record<string, (text: string, language: Language, profile: ProfileScores) => SituationalOutcome>
> = {
  [SITUATIONAL_METHOD_VERSION]: analyseSituation,
};

export const methodVersions = Object.keys(situationalMethods);
