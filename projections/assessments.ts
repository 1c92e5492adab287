import { type Assessment, type AssessmentEvent, evolveAssessment } from '../src/domain/assessment.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';
import type { Projection } from './projection.js';

/** The `assessments` collection: each document is the assessment's folded state, as the domain folds it. */
export const assessmentsProjection: Projection = {
  name: 'assessments',
  collection: 'assessments',
  canHandle: ['AssessmentStarted', 'ResponsesSubmitted', 'ScoringCompleted', 'AssessmentAbandoned', 'ProfileRescored', 'ProfileUpdated'],
  documentId: (event) => (event.data as AssessmentEvent['data']).assessment_id,
  // The answers go; what stays says only that there was an assessment and how far it got.
  erasure: { keep: ['id', 'subject_id', 'status', 'created_at', 'expires_at'] },
  evolve: (current: Document | undefined, event: RecordedEvent) =>
    evolveAssessment(current as Assessment | undefined, event as unknown as AssessmentEvent) as unknown as Document,
};
