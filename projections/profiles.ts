import type { ScoringCompleted } from '../src/domain/assessment.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Projection } from './projection.js';

/** The `profiles` collection: one document per scored assessment, the latest per subject found by id order. */
export const profilesProjection: Projection = {
  name: 'profiles',
  collection: 'profiles',
  canHandle: ['ScoringCompleted'],
  documentId: (event) => (event.data as ScoringCompleted['data']).profile_id,
  evolve(_current, recorded: RecordedEvent) {
    const { data } = recorded as unknown as ScoringCompleted;
    return {
      id: data.profile_id,
      subject_id: data.subject_id,
      assessment_id: data.assessment_id,
      scoring_version: data.scoring_version,
      language: data.language,
      natures: data.pii.profile.natures,
      intelligences: data.pii.profile.intelligences,
      descriptions: data.pii.profile.descriptions,
      created_at: data.completed_at,
    };
  },
};
