import { type Assessment, type AssessmentEvent, evolveAssessment, type ResponsesSubmitted } from '../src/domain/assessment.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';
import { type SealedPart, sealedPart } from '../src/privacy/sealed-part.js';
import { ITEM_COUNT } from '../src/scoring/item-bank.js';
import type { Projection } from './projection.js';

/**
 * An assessment as the read model keeps it: the domain's state without its answers. While it is unscored they
 * stay sealed as the log holds them, one part per accepted batch in log order (the API opens them to tell
 * which items are answered); once it is scored every item is, and they go.
 */
export type StoredAssessment = Omit<Assessment, 'answers'> & { responses: SealedPart[] };

/** Whether every item is answered: a scored assessment's answers are all there, so its document keeps none. */
export const allAnswered = (assessment: { status: string }) => assessment.status === 'completed';

/**
 * The `assessments` collection: each document is the assessment's state as the domain folds it, except the
 * answers. Whether a batch completed the 76 is read from its `responses_received`, outside the sealed part;
 * a batch recorded before that count was kept leaves the assessment `in_progress` until it is scored.
 */
export const assessmentsProjection: Projection = {
  name: 'assessments',
  collection: 'assessments',
  canHandle: ['AssessmentStarted', 'ResponsesSubmitted', 'ScoringCompleted', 'AssessmentAbandoned', 'ProfileRescored', 'ProfileUpdated'],
  documentId: (event) => (event.data as AssessmentEvent['data']).assessment_id,
  // The answers go; what stays says only that there was an assessment and how far it got.
  erasure: { keep: ['id', 'subject_id', 'status', 'created_at', 'expires_at'] },
  evolve(current: Document | undefined, event: RecordedEvent) {
    const stored = current as StoredAssessment | undefined;
    if (event.type === 'ResponsesSubmitted') {
      if (stored === undefined) return null;
      const { submitted_at, responses_received } = (event as unknown as ResponsesSubmitted).data;
      const status = responses_received === ITEM_COUNT ? 'scoring' : 'in_progress';
      return {
        ...stored,
        responses: [...stored.responses, sealedPart(event)],
        status,
        updated_at: submitted_at,
      } satisfies StoredAssessment as unknown as Document;
    }
    const evolved = evolveAssessment(stored && { ...stored, answers: {} }, event as unknown as AssessmentEvent);
    if (evolved === undefined) return null;
    const { answers: _none, ...next } = evolved;
    return { ...next, responses: allAnswered(next) ? [] : (stored?.responses ?? []) } satisfies StoredAssessment as unknown as Document;
  },
};
