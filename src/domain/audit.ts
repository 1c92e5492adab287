import type { AssessmentEvent } from './assessment.js';
import { type Assessment, statusAt } from './assessment.js';
import type { SituationalAssessmentEvent } from './situational-assessment.js';
import type { SubjectEvent } from './subject.js';

/** One line of a subject's history, as the audit shows it. */
export interface AuditEntry {
  /** The log event's id; `<assessment id>:expired` for an expiry, which the clock decides and no event records. */
  id: string;
  object: 'audit_entry';
  type: AuditType;
  occurred_at: string;
  assessment_id: string | null;
  key_id: string | null;
  request_id: string | null;
  /** `erased` where the event held personal data that the erasure made unreadable; its fields are then null. */
  personal_data: 'present' | 'erased' | 'none';
  data: Record<string, unknown>;
}

export const auditTypes = [
  'subject.created',
  'consent.recorded',
  'assessment.started',
  'responses.submitted',
  'assessment.abandoned',
  'assessment.expired',
  'assessment.scored',
  'profile.rescored',
  'profile.updated',
  'situational.requested',
  'situational.completed',
  'situational.recomputed',
  'subject.erased',
] as const;

export type AuditType = (typeof auditTypes)[number];

/** What the audit needs of a recorded event. */
export interface AuditSource {
  id: string;
  type: string;
  data: unknown;
  metadata: { key_id?: string; request_id?: string };
  recordedAt: string;
}

const subjectEventTypes: readonly string[] = [
  'SubjectCreated',
  'ConsentRecorded',
  'AssessmentOpened',
  'SubjectErased',
] satisfies SubjectEvent['type'][];
const assessmentEventTypes: readonly string[] = [
  'AssessmentStarted',
  'ResponsesSubmitted',
  'AssessmentAbandoned',
  'ScoringCompleted',
  'ProfileRescored',
  'ProfileUpdated',
] satisfies AssessmentEvent['type'][];

const situationalEventTypes: readonly string[] = [
  'SituationalAssessmentRequested',
  'SituationalAssessmentCompleted',
  'SituationalAssessmentRecomputed',
] satisfies SituationalAssessmentEvent['type'][];

/** Told by its type: the data of a logged event is what the domain decided for that type. */
const isSubjectEvent = (source: AuditSource): source is AuditSource & SubjectEvent => subjectEventTypes.includes(source.type);
const isAssessmentEvent = (source: AuditSource): source is AuditSource & AssessmentEvent => assessmentEventTypes.includes(source.type);
const isSituationalEvent = (source: AuditSource): source is AuditSource & SituationalAssessmentEvent =>
  situationalEventTypes.includes(source.type);

function entry(
  source: AuditSource,
  type: AuditType,
  assessmentId: string | null,
  data: Record<string, unknown>,
  pii?: unknown,
): AuditEntry {
  return {
    id: source.id,
    object: 'audit_entry',
    type,
    occurred_at: source.recordedAt,
    assessment_id: assessmentId,
    key_id: source.metadata.key_id ?? null,
    request_id: source.metadata.request_id ?? null,
    personal_data: pii === undefined ? 'none' : pii === null ? 'erased' : 'present',
    data,
  };
}

/** The subject's own events as audit entries; the assessment pointer is bookkeeping and not shown. */
export function subjectAudit(source: AuditSource): AuditEntry | undefined {
  if (!isSubjectEvent(source)) return undefined;
  switch (source.type) {
    case 'SubjectCreated': {
      const pii = source.data.pii;
      return entry(
        source,
        'subject.created',
        null,
        { external_subject_id: pii?.external_subject_id ?? null, metadata: pii?.metadata ?? null },
        pii,
      );
    }
    case 'ConsentRecorded':
      return entry(source, 'consent.recorded', null, { consent: source.data.consent });
    case 'SubjectErased':
      return entry(source, 'subject.erased', null, { erased_at: source.data.erased_at });
    case 'AssessmentOpened':
      return undefined;
  }
}

/** An assessment's events as audit entries. */
export function assessmentAudit(source: AuditSource): AuditEntry | undefined {
  if (!isAssessmentEvent(source)) return undefined;
  const id = source.data.assessment_id;
  switch (source.type) {
    case 'AssessmentStarted': {
      const { language, requested_language, item_set_version, expires_at } = source.data;
      return entry(source, 'assessment.started', id, { language, requested_language, item_set_version, expires_at });
    }
    case 'ResponsesSubmitted':
      return entry(source, 'responses.submitted', id, { responses: source.data.pii?.responses ?? null }, source.data.pii);
    case 'AssessmentAbandoned':
      // By the subject's erasure, which closes an open assessment before it is recorded.
      return entry(source, 'assessment.abandoned', id, source.data.reason === undefined ? {} : { reason: source.data.reason });
    case 'ScoringCompleted': {
      const { scoring_version, profile_id, event_id } = source.data;
      return entry(source, 'assessment.scored', id, { scoring_version, profile_id, event_id });
    }
    case 'ProfileRescored': {
      const { scoring_version, profile_id, replaces_profile_id, changed } = source.data;
      return entry(source, 'profile.rescored', id, { scoring_version, profile_id, replaces_profile_id, changed });
    }
    case 'ProfileUpdated': {
      const { scoring_version, profile_id, previous_profile_id, event_id } = source.data;
      return entry(source, 'profile.updated', id, { scoring_version, profile_id, previous_profile_id, event_id });
    }
  }
}

/**
 * A situational assessment's events as audit entries: the request with its text (personal data, as answers are), and
 * how it ended (read again by a rebuild's method version, too). Its result is not repeated here: GET
 * /v1/situational/assessments/{id} shows it.
 */
export function situationalAudit(source: AuditSource): AuditEntry | undefined {
  if (!isSituationalEvent(source)) return undefined;
  const { situational_assessment_id } = source.data;
  if (source.type === 'SituationalAssessmentRequested') {
    const { profile_id, language, pii } = source.data;
    const data = { situational_assessment_id, profile_id, language, situation_context: pii?.situation_context ?? null };
    return entry(source, 'situational.requested', null, data, pii);
  }
  const { status, failure_code, method_version } = source.data;
  const outcome = { situational_assessment_id, status, ...(failure_code !== undefined && { failure_code }), method_version };
  if (source.type === 'SituationalAssessmentRecomputed') return entry(source, 'situational.recomputed', null, outcome);
  return entry(source, 'situational.completed', null, { ...outcome, event_id: source.data.event_id });
}

/** An open assessment past its expiry, as of `now`: the clock expired it at expires_at. */
export function expiryAudit(assessment: Assessment, now: Date): AuditEntry | undefined {
  if (statusAt(assessment, now) !== 'expired') return undefined;
  return {
    id: `${assessment.id}:expired`,
    object: 'audit_entry',
    type: 'assessment.expired',
    occurred_at: assessment.expires_at,
    assessment_id: assessment.id,
    key_id: null,
    request_id: null,
    personal_data: 'none',
    data: { expires_at: assessment.expires_at },
  };
}
