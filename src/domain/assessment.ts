import { ITEM_COUNT, ITEM_SET_VERSION } from '../scoring/item-bank.js';
import type { ScoredProfile } from '../scoring/scorer-v1.js';
import type { Scorer } from '../scoring/scorers.js';
import { DomainError } from './errors.js';

const ASSESSMENT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type Language = 'en' | 'fr';

export interface ItemResponse {
  item_id: string;
  value: number;
}

export type AssessmentStarted = {
  type: 'AssessmentStarted';
  data: {
    assessment_id: string;
    subject_id: string;
    /** The language used: English at v1, whatever was asked for. */
    language: 'en';
    requested_language: Language;
    item_set_version: string;
    created_at: string;
    expires_at: string;
  };
};
/** One accepted batch: only the answers it added or changed. Answers are personal data, so under `pii`. */
export type ResponsesSubmitted = {
  type: 'ResponsesSubmitted';
  data: { assessment_id: string; submitted_at: string; pii: { responses: ItemResponse[] } };
};
export type ScoringCompleted = {
  type: 'ScoringCompleted';
  data: {
    assessment_id: string;
    subject_id: string;
    profile_id: string;
    /** The id of the nature.assessment.completed event this completion notifies (evt_…). */
    event_id: string;
    scoring_version: string;
    language: 'en';
    completed_at: string;
    pii: { profile: Omit<ScoredProfile, 'scoring_version'> };
  };
};
export type AssessmentAbandoned = {
  type: 'AssessmentAbandoned';
  data: { assessment_id: string; abandoned_at: string };
};

export type AssessmentEvent = AssessmentStarted | ResponsesSubmitted | ScoringCompleted | AssessmentAbandoned;

/** Stored states; `expired` is derived from the clock (see statusAt), never stored. */
export type StoredStatus = 'created' | 'in_progress' | 'scoring' | 'completed' | 'abandoned';
export type AssessmentStatus = StoredStatus | 'expired';

export interface Assessment {
  id: string;
  subject_id: string;
  status: StoredStatus;
  language: 'en';
  requested_language: Language;
  item_set_version: string;
  /** Latest answer per item. */
  answers: Record<string, number>;
  profile_id: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  expires_at: string;
}

/** Undefined until the assessment's stream has its first event. */
export type AssessmentState = Assessment | undefined;

export function assessmentStream(assessmentId: string): string {
  return `assessment-${assessmentId}`;
}

export function evolveAssessment(state: AssessmentState, event: AssessmentEvent): AssessmentState {
  if (event.type === 'AssessmentStarted') {
    const { assessment_id, created_at, ...rest } = event.data;
    return { id: assessment_id, ...rest, status: 'created', answers: {}, profile_id: null, created_at, updated_at: created_at, completed_at: null };
  }
  if (state === undefined) return state;
  switch (event.type) {
    case 'ResponsesSubmitted': {
      const answers = { ...state.answers };
      for (const { item_id, value } of event.data.pii.responses) answers[item_id] = value;
      const status = Object.keys(answers).length === ITEM_COUNT ? 'scoring' : 'in_progress';
      return { ...state, answers, status, updated_at: event.data.submitted_at };
    }
    case 'ScoringCompleted':
      return { ...state, status: 'completed', profile_id: event.data.profile_id, completed_at: event.data.completed_at, updated_at: event.data.completed_at };
    case 'AssessmentAbandoned':
      return { ...state, status: 'abandoned', updated_at: event.data.abandoned_at };
  }
}

/** The status as of `now`: an open assessment past its expiry is expired. */
export function statusAt(assessment: Assessment, now: Date): AssessmentStatus {
  const open = assessment.status === 'created' || assessment.status === 'in_progress';
  return open && now.getTime() >= Date.parse(assessment.expires_at) ? 'expired' : assessment.status;
}

/** Open = accepts responses and can be abandoned. */
export function isOpen(assessment: Assessment, now: Date): boolean {
  const status = statusAt(assessment, now);
  return status === 'created' || status === 'in_progress';
}

/** What the subject's stream records when it opens an assessment: all its stream's first event needs. */
export interface AssessmentPointer {
  subject_id: string;
  assessment_id: string;
  requested_language: Language;
  created_at: string;
  expires_at: string;
}

export function assessmentPointer(command: { assessment_id: string; subject_id: string; requested_language: Language; now: Date }): AssessmentPointer {
  return {
    subject_id: command.subject_id,
    assessment_id: command.assessment_id,
    requested_language: command.requested_language,
    created_at: command.now.toISOString(),
    expires_at: new Date(command.now.getTime() + ASSESSMENT_TTL_MS).toISOString(),
  };
}

/** The assessment's first event, from the pointer alone: whoever writes it writes the same. */
export function decideStartAssessment(pointer: AssessmentPointer): AssessmentEvent[] {
  return [
    {
      type: 'AssessmentStarted',
      data: {
        assessment_id: pointer.assessment_id,
        subject_id: pointer.subject_id,
        language: 'en',
        requested_language: pointer.requested_language,
        item_set_version: ITEM_SET_VERSION,
        created_at: pointer.created_at,
        expires_at: pointer.expires_at,
      },
    },
  ];
}

function openAssessmentOf(state: AssessmentState, subjectId: string, now: Date): Assessment {
  if (state === undefined || state.subject_id !== subjectId) throw new DomainError('not_found', 'No such assessment for this subject.');
  if (!isOpen(state, now)) {
    const status = statusAt(state, now);
    throw new DomainError('assessment_not_open', `The assessment is ${status}; only created and in_progress assessments change.`, {
      assessment_status: status,
    });
  }
  return state;
}

/** Keeps only answers that are new or changed: a retried batch decides nothing. */
export function decideSubmitResponses(
  state: AssessmentState,
  command: { subject_id: string; responses: ItemResponse[]; now: Date },
): AssessmentEvent[] {
  const assessment = openAssessmentOf(state, command.subject_id, command.now);
  const changed = command.responses.filter(({ item_id, value }) => assessment.answers[item_id] !== value);
  if (changed.length === 0) return [];
  return [{ type: 'ResponsesSubmitted', data: { assessment_id: assessment.id, submitted_at: command.now.toISOString(), pii: { responses: changed } } }];
}

export function decideAbandonAssessment(state: AssessmentState, command: { subject_id: string; now: Date }): AssessmentEvent[] {
  const assessment = openAssessmentOf(state, command.subject_id, command.now);
  return [{ type: 'AssessmentAbandoned', data: { assessment_id: assessment.id, abandoned_at: command.now.toISOString() } }];
}

/** Scores an assessment that is waiting for it; anything else (already scored, say) decides nothing. */
export function decideScoreAssessment(
  state: AssessmentState,
  command: { profile_id: string; event_id: string; scorer: Scorer; now: Date },
): AssessmentEvent[] {
  if (state === undefined || state.status !== 'scoring') return [];
  const { scoring_version, ...profile } = command.scorer(state.answers);
  return [
    {
      type: 'ScoringCompleted',
      data: {
        assessment_id: state.id,
        subject_id: state.subject_id,
        profile_id: command.profile_id,
        event_id: command.event_id,
        scoring_version,
        language: state.language,
        completed_at: command.now.toISOString(),
        pii: { profile },
      },
    },
  ];
}
