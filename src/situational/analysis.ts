import type { SituationalAssessmentCompleted, SituationalResult } from '../domain/situational-assessment.js';
import { type Construct, intelligences, natures } from '../scoring/constructs.js';
import type { Language } from '../scoring/languages.js';
import { alignmentOf, type PersonScores } from './alignment.js';
import { situationalNarrative } from './narrative.js';
import { readSituation, unclear } from './reading.js';

/** What reading a situation against a profile comes to: a result, or a failure that is final for that text. */
export type SituationalOutcome =
  | { status: 'completed'; result: SituationalResult }
  | { status: 'failed'; failure_code: NonNullable<SituationalAssessmentCompleted['data']['failure_code']> };

/** A profile's scores as it keeps them: natures and intelligences apart. */
export interface ProfileScores {
  natures: Record<string, number>;
  intelligences: Record<string, number>;
}

const split = (values: Record<Construct, number>) => ({
  natures: Object.fromEntries(natures.map((name) => [name, values[name]])),
  intelligences: Object.fromEntries(intelligences.map((name) => [name, values[name]])),
});

/**
 * The whole method (`situational-v1`): the text read for what it draws on, the profile's scores met against that, and
 * the narrative told of both. Pure and deterministic: the same text, scores and language give the same outcome.
 */
export function analyseSituation(text: string, language: Language, profile: ProfileScores): SituationalOutcome {
  const reading = readSituation(text, language);
  if (unclear(reading)) return { status: 'failed', failure_code: 'situation_unclear' };
  const scores = { ...profile.natures, ...profile.intelligences } as PersonScores;
  const alignment = alignmentOf(reading.demand, scores);
  return {
    status: 'completed',
    result: {
      situation: split(reading.demand),
      alignment: { overall: alignment.overall, ...split(alignment.constructs) },
      narrative: situationalNarrative(reading.drawsOnMost, alignment, language),
    },
  };
}
