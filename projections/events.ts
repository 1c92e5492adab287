import type { ScoringCompleted } from '../src/domain/assessment.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Projection } from './projection.js';

/** The `events` collection: the event objects callers receive by webhook and may list to catch up. */
export const eventsProjection: Projection = {
  name: 'events',
  collection: 'events',
  canHandle: ['ScoringCompleted'],
  documentId: (event) => (event.data as ScoringCompleted['data']).event_id,
  evolve(_current, recorded: RecordedEvent) {
    const { data } = recorded as unknown as ScoringCompleted;
    return {
      id: data.event_id,
      type: 'nature.assessment.completed',
      created_at: data.completed_at,
      data: { profile_id: data.profile_id, assessment_id: data.assessment_id, subject_id: data.subject_id },
    };
  },
};
