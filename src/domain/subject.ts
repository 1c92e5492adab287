import { createHash } from 'node:crypto';
import { type AssessmentPointer, type AssessmentState, type Language, assessmentPointer, isOpen } from './assessment.js';
import { DomainError } from './errors.js';

export interface Consent {
  text_version: string;
  granted_at: string;
  ui_hash: string;
}

/**
 * Personal fields travel in one `pii` object inside an event, so the privacy work can replace it with
 * a per-subject encrypted envelope (crypto-shredding) without new event types.
 */
export interface SubjectPii {
  external_subject_id: string;
  metadata: Record<string, string>;
}

export type SubjectCreated = {
  type: 'SubjectCreated';
  data: { subject_id: string; created_at: string; pii: SubjectPii };
};
/** Kept outside `pii`: the consent record outlives an erasure, for audit. */
export type ConsentRecorded = {
  type: 'ConsentRecorded';
  data: { subject_id: string; recorded_at: string; consent: Consent };
};
/** First event of the external id's reservation stream: it makes external_subject_id unique. */
export type ExternalIdClaimed = {
  type: 'ExternalIdClaimed';
  data: { subject_id: string };
};

/**
 * The subject's pointer to its newest assessment. Appending it at the subject's revision serialises
 * starts, which is what makes "one open assessment per subject" hold under concurrency. It carries all
 * the assessment's first event needs, so anyone finding the pointer without that stream can write it.
 */
export type AssessmentOpened = {
  type: 'AssessmentOpened';
  data: AssessmentPointer;
};

export type SubjectEvent = SubjectCreated | ConsentRecorded | AssessmentOpened;

export type SubjectState =
  | { status: 'none' }
  | {
      status: 'active';
      id: string;
      created_at: string;
      pii: SubjectPii;
      consent: Consent | null;
      current_assessment: AssessmentPointer | null;
    };

export const initialSubjectState: SubjectState = { status: 'none' };

export function subjectStream(subjectId: string): string {
  return `subject-${subjectId}`;
}

/** The reservation stream of an external id; named by a digest so the id itself is not in a stream name. */
export function externalIdStream(externalSubjectId: string): string {
  return `subject_ref-${createHash('sha256').update(externalSubjectId).digest('hex')}`;
}

export function evolveSubject(state: SubjectState, event: SubjectEvent): SubjectState {
  switch (event.type) {
    case 'SubjectCreated':
      return { status: 'active', id: event.data.subject_id, created_at: event.data.created_at, pii: event.data.pii, consent: null, current_assessment: null };
    case 'ConsentRecorded':
      return state.status === 'active' ? { ...state, consent: event.data.consent } : state;
    case 'AssessmentOpened':
      return state.status === 'active' ? { ...state, current_assessment: event.data } : state;
  }
}

export interface CreateSubject {
  subject_id: string;
  external_subject_id: string;
  metadata: Record<string, string>;
  consent: Consent;
  now: string;
}

export function decideCreateSubject(state: SubjectState, command: CreateSubject): SubjectEvent[] {
  if (state.status !== 'none') {
    throw new DomainError('subject_exists', 'A subject with this external_subject_id already exists.', {
      subject_id: state.id,
    });
  }
  return [
    {
      type: 'SubjectCreated',
      data: {
        subject_id: command.subject_id,
        created_at: command.now,
        pii: { external_subject_id: command.external_subject_id, metadata: command.metadata },
      },
    },
    { type: 'ConsentRecorded', data: { subject_id: command.subject_id, recorded_at: command.now, consent: command.consent } },
  ];
}

/**
 * A subject may open a new assessment unless its current one is still open. `current` is the fold of the
 * assessment the subject points to; the caller writes a pointed-to stream that is missing before deciding.
 */
export function decideOpenAssessment(
  state: SubjectState,
  current: AssessmentState,
  command: { assessment_id: string; requested_language: Language; now: Date },
): SubjectEvent[] {
  if (state.status !== 'active') throw new DomainError('not_found', 'No such subject.');
  if (current !== undefined && isOpen(current, command.now)) {
    throw new DomainError('assessment_in_progress', 'The subject has an open assessment; finish or abandon it first.', {
      assessment_id: current.id,
    });
  }
  return [{ type: 'AssessmentOpened', data: assessmentPointer({ ...command, subject_id: state.id }) }];
}
