import type { ProfileUpdated, ScoringCompleted } from '../domain/assessment.js';
import type { SituationalAssessmentCompleted } from '../domain/situational-assessment.js';
import type { CollectionProjection } from '../ports/projection.js';

/** The `events` collection: the event objects callers receive by webhook and may list to catch up. Ids only, nothing personal. */
export const eventsProjection: CollectionProjection<ScoringCompleted | ProfileUpdated | SituationalAssessmentCompleted, 'events'> = {
  name: 'events',
  collection: 'events',
  canHandle: ['ScoringCompleted', 'ProfileUpdated', 'SituationalAssessmentCompleted'],
  documentId: (event) => event.data.event_id,
  evolve(_current, event) {
    if (event.type === 'SituationalAssessmentCompleted') {
      const { event_id, situational_assessment_id: id, subject_id, status, completed_at } = event.data;
      return { id: event_id, type: 'situational.assessment.completed', created_at: completed_at, data: { id, subject_id, status } };
    }
    const { event_id, subject_id, assessment_id, profile_id } = event.data;
    if (event.type === 'ScoringCompleted') {
      return {
        id: event_id,
        type: 'nature.assessment.completed',
        created_at: event.data.completed_at,
        data: { profile_id, assessment_id, subject_id },
      };
    }
    const { previous_profile_id, scoring_version, updated_at } = event.data;
    return {
      id: event_id,
      type: 'nature.profile.updated',
      created_at: updated_at,
      data: { profile_id, previous_profile_id, assessment_id, subject_id, scoring_version },
    };
  },
};
