import type { ProfileRescored, ScoringCompleted } from '../domain/assessment.js';
import type { CollectionProjection } from '../ports/projection.js';
import { sealedPart } from '../privacy/sealed-part.js';
import { erasureSweep } from './erasure-sweep.js';

/**
 * The `profiles` collection (scores and narratives sealed under the subject's key, as `pii`): every profile ever made, one document each, in every scoring version. Which
 * one the API serves for an assessment is decided when it is read (the active scoring version's, else the
 * completion's), so a rebuild's profiles wait here until their version is activated.
 */
export const profilesProjection: CollectionProjection<ScoringCompleted | ProfileRescored, 'profiles'> = {
  name: 'profiles',
  collection: 'profiles',
  canHandle: ['ScoringCompleted', 'ProfileRescored'],
  documentId: (event) => event.data.profile_id,
  // What a profile keeps once its subject is erased: where it came from, nothing personal.
  sweep: erasureSweep<'profiles'>(['id', 'subject_id', 'assessment_id', 'scoring_version', 'origin', 'completed_at', 'created_at']),
  evolve(_current, event) {
    const { data } = event;
    const completion = event.type === 'ScoringCompleted';
    const skeleton = {
      id: data.profile_id,
      subject_id: data.subject_id,
      assessment_id: data.assessment_id,
      scoring_version: data.scoring_version,
      origin: completion ? 'completion' : 'rebuild',
      completed_at: data.completed_at,
      created_at: completion ? data.completed_at : event.data.rescored_at,
    } as const;
    // Scores and narratives stay sealed as the log holds them: the API opens them to answer.
    // Rescorings recorded before French existed carry no language: their assessments were English.
    return { ...skeleton, language: data.language ?? 'en', pii: sealedPart(event) };
  },
};
