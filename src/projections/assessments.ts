import { type AssessmentEvent, evolveAssessment } from '../domain/assessment.js';
import { allAnswered, type StoredAssessment } from '../ports/collections.js';
import type { CollectionProjection } from '../ports/projection.js';
import { sealedPart } from '../privacy/sealed-part.js';
import { ITEM_COUNT } from '../scoring/item-bank.js';
import { erasureSweep } from './erasure-sweep.js';

/**
 * The `assessments` collection: each document is the assessment's state as the domain folds it, except the
 * answers. Whether a batch completed the 76 is read from its `responses_received`, outside the sealed part;
 * a batch recorded before that count was kept leaves the assessment `in_progress` until it is scored.
 */
export const assessmentsProjection: CollectionProjection<AssessmentEvent, 'assessments'> = {
  name: 'assessments',
  collection: 'assessments',
  canHandle: [
    'AssessmentStarted',
    'ResponsesSubmitted',
    'ScoringCompleted',
    'AssessmentAbandoned',
    'AssessmentExpired',
    'ProfileRescored',
    'ProfileUpdated',
  ],
  documentId: (event) => event.data.assessment_id,
  // The answers go; what stays says only that there was an assessment and how far it got.
  sweep: erasureSweep<'assessments'>(['id', 'subject_id', 'status', 'created_at', 'expires_at']),
  evolve(current, event) {
    // An erased assessment takes nothing more: its personal fields are gone for good.
    if (current !== undefined && 'erased' in current) return current;
    if (event.type === 'ResponsesSubmitted') {
      if (current === undefined) return null;
      const { submitted_at, responses_received } = event.data;
      const status = responses_received === ITEM_COUNT ? 'scoring' : 'in_progress';
      return withExpiryHour({ ...current, responses: [...current.responses, sealedPart(event)], status, updated_at: submitted_at });
    }
    const evolved = evolveAssessment(current && { ...current, answers: {}, timing: {} }, event);
    if (evolved === undefined) return null;
    const { answers: _none, timing: _sealedWithTheAnswers, ...next } = evolved;
    return withExpiryHour({ ...next, responses: allAnswered(next) ? [] : (current?.responses ?? []) });
  },
};

/** The hour an expiry falls in, as the `expiry_hour` the watch lists by. */
export const expiryHour = (expiresAt: string): string => expiresAt.slice(0, 13);

/** An open assessment (by its stored status) carries its expiry's hour, for the watch to find; a closed one does not. */
function withExpiryHour(assessment: StoredAssessment): StoredAssessment {
  const { expiry_hour: _before, ...rest } = assessment;
  const open = rest.status === 'created' || rest.status === 'in_progress';
  return open ? { ...rest, expiry_hour: expiryHour(rest.expires_at) } : rest;
}
