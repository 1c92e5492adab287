import { createHmac } from 'node:crypto';
import { type AssessmentPointer, type AssessmentState, assessmentPointer, isOpen, type StartAssessment } from './assessment.js';
import { DomainError, subjectErasedError } from './errors.js';

export interface Consent {
  text_version: string;
  granted_at: string;
  ui_hash: string;
}

/**
 * Personal fields travel in one `pii` object inside an event, beside the `subject_id` whose data key
 * seals it in the log; once the subject is erased (its key destroyed) the log reads it as null.
 */
export interface SubjectPii {
  external_subject_id: string;
  metadata: Record<string, string>;
}

/** `event_id`: the nature.subject.created event it is announced as (absent from subjects created before lifecycle events). */
export type SubjectCreated = {
  type: 'SubjectCreated';
  data: { subject_id: string; created_at: string; pii: SubjectPii | null; event_id?: string };
};
/** Kept outside `pii`: the consent record outlives an erasure, for audit. */
export type ConsentRecorded = {
  type: 'ConsentRecorded';
  data: { subject_id: string; recorded_at: string; consent: Consent };
};
/** The external id's reservation stream: a claim makes external_subject_id unique; an erasure releases it. */
export type ExternalIdClaimed = {
  type: 'ExternalIdClaimed';
  data: { subject_id: string };
};
export type ExternalIdReleased = {
  type: 'ExternalIdReleased';
  data: { subject_id: string; released_at: string };
};
export type ReservationEvent = ExternalIdClaimed | ExternalIdReleased;

/**
 * The subject's personal data was erased: its data key is destroyed. `reservation` names the external id's
 * reservation stream (a keyed hash, not the id), so the erasure can release it without the id.
 */
export type SubjectErased = {
  type: 'SubjectErased';
  /** `event_id`: the nature.subject.erased event it is announced as (absent from erasures before lifecycle events). */
  data: { subject_id: string; erased_at: string; reservation: string | null; event_id?: string };
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

export type SubjectEvent = SubjectCreated | ConsentRecorded | AssessmentOpened | SubjectErased;

export type SubjectState =
  | { status: 'none' }
  | {
      status: 'active';
      id: string;
      created_at: string;
      /** Null when read after the erasure destroyed the key. */
      pii: SubjectPii | null;
      consent: Consent | null;
      current_assessment: AssessmentPointer | null;
    }
  | { status: 'erased'; id: string; created_at: string; consent: Consent | null; erased_at: string };

export const initialSubjectState: SubjectState = { status: 'none' };

export function subjectStream(subjectId: string): string {
  return `subject-${subjectId}`;
}

/**
 * The reservation stream of an external id, named by an HMAC under the environment's secret: the id is
 * in no stream name, and a guessed id cannot be confirmed without the secret.
 */
export function externalIdStream(externalSubjectId: string, secret: Buffer): string {
  return `${RESERVATION_PREFIX}${externalIdRef(externalSubjectId, secret)}`;
}

const RESERVATION_PREFIX = 'subject_ref-';

/** The keyed hash of an external id: what names its reservation, and what finds its subject in the read models. */
export function externalIdRef(externalSubjectId: string, secret: Buffer): string {
  return createHmac('sha256', secret).update(externalSubjectId).digest('hex');
}

/** The keyed hash in a reservation stream's name. */
export function reservationRef(streamName: string): string {
  return streamName.slice(streamName.lastIndexOf(RESERVATION_PREFIX) + RESERVATION_PREFIX.length);
}

/** The subject holding the reservation, if it is claimed and not released. */
export function reservationHolder(events: readonly ReservationEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.type === 'ExternalIdClaimed' ? last.data.subject_id : undefined;
}

/** Claims a free external id for a new subject; a held one is claimed by no one else (an empty decision). */
export function decideClaimExternalId(holder: string | undefined, command: { subject_id: string }): ExternalIdClaimed[] {
  return holder === undefined ? [{ type: 'ExternalIdClaimed', data: { subject_id: command.subject_id } }] : [];
}

/** Frees an erased subject's external id; a reservation it no longer holds is left as it is. */
export function decideReleaseExternalId(holder: string | undefined, command: { subject_id: string; now: string }): ExternalIdReleased[] {
  return holder === command.subject_id
    ? [{ type: 'ExternalIdReleased', data: { subject_id: command.subject_id, released_at: command.now } }]
    : [];
}

export function evolveSubject(state: SubjectState, event: SubjectEvent): SubjectState {
  switch (event.type) {
    case 'SubjectCreated':
      return {
        status: 'active',
        id: event.data.subject_id,
        created_at: event.data.created_at,
        pii: event.data.pii,
        consent: null,
        current_assessment: null,
      };
    case 'ConsentRecorded':
      return state.status === 'active' ? { ...state, consent: event.data.consent } : state;
    case 'AssessmentOpened':
      return state.status === 'active' ? { ...state, current_assessment: event.data } : state;
    case 'SubjectErased':
      if (state.status === 'none') return state;
      return { status: 'erased', id: state.id, created_at: state.created_at, consent: state.consent, erased_at: event.data.erased_at };
  }
}

/** A subject that can be acted on; erased and unknown subjects refuse every command with their own error. */
export function activeSubject(state: SubjectState): Extract<SubjectState, { status: 'active' }> {
  if (state.status === 'none') throw new DomainError('not_found', 'No such subject.');
  if (state.status === 'erased') throw subjectErasedError(state.id, state.erased_at);
  return state;
}

export function decideEraseSubject(
  state: SubjectState,
  command: { reservation: string | null; event_id: string; now: Date },
): SubjectEvent[] {
  const subject = activeSubject(state);
  const { reservation, event_id } = command;
  return [{ type: 'SubjectErased', data: { subject_id: subject.id, erased_at: command.now.toISOString(), reservation, event_id } }];
}

export interface CreateSubject {
  subject_id: string;
  external_subject_id: string;
  metadata: Record<string, string>;
  consent: Consent;
  /** The id it is announced under (nature.subject.created). */
  event_id: string;
  now: string;
}

export function decideCreateSubject(state: SubjectState, command: CreateSubject): SubjectEvent[] {
  if (state.status === 'erased') throw subjectErasedError(state.id, state.erased_at);
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
        event_id: command.event_id,
      },
    },
    { type: 'ConsentRecorded', data: { subject_id: command.subject_id, recorded_at: command.now, consent: command.consent } },
  ];
}

/**
 * A subject may open a new assessment unless its current one is still open. `current` is the fold of the
 * assessment the subject points to; the caller writes a pointed-to stream that is missing before deciding.
 */
export function decideOpenAssessment(state: SubjectState, current: AssessmentState, command: StartAssessment): SubjectEvent[] {
  const subject = activeSubject(state);
  if (current !== undefined && isOpen(current, command.now)) {
    throw new DomainError('assessment_in_progress', 'The subject has an open assessment; finish or abandon it first.', {
      assessment_id: current.id,
    });
  }
  return [{ type: 'AssessmentOpened', data: assessmentPointer({ ...command, subject_id: subject.id }) }];
}
