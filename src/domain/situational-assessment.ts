import type { Language } from '../scoring/languages.js';

/**
 * A situational assessment (specification v1.1): how a subject's profile meets a situation told in free text. Its
 * stream holds the request (the text sealed under the subject's key) and, once the leader has read it, the outcome.
 */

/** What a completed assessment found, sealed as personal data: it is the person's profile read against the text. */
export interface SituationalResult {
  situation: { natures: Record<string, number>; intelligences: Record<string, number> };
  alignment: { overall: number; natures: Record<string, number>; intelligences: Record<string, number> };
  narrative: string;
}

export type FailureCode = 'situation_unclear';

export type SituationalAssessmentRequested = {
  type: 'SituationalAssessmentRequested';
  data: {
    situational_assessment_id: string;
    subject_id: string;
    /** The subject's latest completed profile when asked: the one the situation is read against. */
    profile_id: string;
    /** The assessment the profile scored: its stream holds the profile's scores. */
    assessment_id: string;
    language: Language;
    created_at: string;
    /** The text is personal data: sealed in the log, null once the subject is erased. */
    pii: { situation_context: string } | null;
  };
};

/** The outcome, once: completed with its (sealed) result, or failed for good with a code. */
export type SituationalAssessmentCompleted = {
  type: 'SituationalAssessmentCompleted';
  data: {
    situational_assessment_id: string;
    subject_id: string;
    /** The id of the situational.assessment.completed event that announces it (evt_…). */
    event_id: string;
    status: 'completed' | 'failed';
    failure_code?: FailureCode;
    method_version: string;
    completed_at: string;
    pii: { result: SituationalResult } | null;
  };
};

/**
 * The outcome read again by another method version (`nature situational rebuild`): it replaces the one shown, and is
 * never announced (the request was answered once, by situational.assessment.completed).
 */
export type SituationalAssessmentRecomputed = {
  type: 'SituationalAssessmentRecomputed';
  data: {
    situational_assessment_id: string;
    subject_id: string;
    status: 'completed' | 'failed';
    failure_code?: FailureCode;
    method_version: string;
    recomputed_at: string;
    pii: { result: SituationalResult } | null;
  };
};

/** The id a keyed request chose, on a stream named by its Idempotency-Key's tag: a retry after a crash finds it. */
export type SituationalAssessmentIdChosen = { type: 'SituationalAssessmentIdChosen'; data: { situational_assessment_id: string } };

export type SituationalAssessmentEvent = SituationalAssessmentRequested | SituationalAssessmentCompleted | SituationalAssessmentRecomputed;

export interface SituationalAssessment {
  id: string;
  subject_id: string;
  profile_id: string;
  assessment_id: string;
  language: Language;
  status: 'pending' | 'completed' | 'failed';
  created_at: string;
  /** The method of the outcome shown; none while pending. */
  method_version?: string;
}

/** Undefined before the request. */
export type SituationalAssessmentState = SituationalAssessment | undefined;

export function situationalStream(id: string): string {
  return `situational-${id}`;
}

export function situationalRequestStream(idempotencyTag: string): string {
  return `situational_request-${idempotencyTag}`;
}

export function evolveSituational(state: SituationalAssessmentState, event: SituationalAssessmentEvent): SituationalAssessmentState {
  if (event.type === 'SituationalAssessmentRequested') {
    const { situational_assessment_id, subject_id, profile_id, assessment_id, language, created_at } = event.data;
    return { id: situational_assessment_id, subject_id, profile_id, assessment_id, language, status: 'pending', created_at };
  }
  return state === undefined ? state : { ...state, status: event.data.status, method_version: event.data.method_version };
}

/** A request is made once: a stream that holds one decides nothing more. */
export function decideRequest(state: SituationalAssessmentState, request: SituationalAssessmentRequested): SituationalAssessmentEvent[] {
  return state === undefined ? [request] : [];
}

/** An outcome is read again only when it was read by another method version. */
export function decideRecompute(
  state: SituationalAssessmentState,
  recomputed: SituationalAssessmentRecomputed,
): SituationalAssessmentEvent[] {
  return state !== undefined && state.status !== 'pending' && state.method_version !== recomputed.data.method_version ? [recomputed] : [];
}

/** The outcome is recorded once, for a pending request only. */
export function decideOutcome(state: SituationalAssessmentState, outcome: SituationalAssessmentCompleted): SituationalAssessmentEvent[] {
  return state?.status === 'pending' ? [outcome] : [];
}
