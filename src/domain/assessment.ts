import { isDeepStrictEqual } from 'node:util';
import { ITEM_COUNT, ITEM_SET_VERSION } from '../scoring/item-bank.js';
import type { Language } from '../scoring/languages.js';
import type { ItemTiming, Quality } from '../scoring/quality.js';
import type { Descriptions, Scorer, Scores } from '../scoring/scorer.js';
import { DomainError, subjectErasedError } from './errors.js';

const ASSESSMENT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface ItemResponse {
  item_id: string;
  value: number;
  /** When the person answered, as the caller reports it (optional): for the quality indicators only. */
  answered_at?: string;
  /** How long the person took on the item, in ms (optional): for the quality indicators only. */
  response_time_ms?: number;
}

/**
 * How far a reported answered_at may stray past the assessment's start or the server's clock: a browser's clock,
 * even one set from the server's Date header (whole seconds), is seldom exact, and a refused batch stops a person.
 */
export const ANSWERED_AT_SKEW_MS = 120_000;

export type AssessmentStarted = {
  type: 'AssessmentStarted';
  data: {
    assessment_id: string;
    subject_id: string;
    /** The language the assessment is given in: the one asked for since French came (v1.0.5); `en` in those started before. */
    language: Language;
    requested_language: Language;
    item_set_version: string;
    created_at: string;
    expires_at: string;
    /** SHA-256 of the assessment's client secret (absent from assessments started before secrets existed). */
    client_secret_hash?: string;
    /** The caller lets the person see their result: the client secret reads the profile for a while after completion. */
    result_visible_to_subject?: boolean;
    /** The id of the nature.assessment.started event it is announced as (absent from starts before lifecycle events). */
    event_id?: string;
  };
};
/**
 * One accepted batch: only the answers it added or changed. Answers are personal data, so under `pii` (null
 * once erased); how many items are answered after it is not, and says without a fold whether it completed
 * the assessment (absent from batches recorded before it was kept).
 */
export type ResponsesSubmitted = {
  type: 'ResponsesSubmitted';
  data: {
    assessment_id: string;
    subject_id: string;
    submitted_at: string;
    responses_received?: number;
    pii: { responses: ItemResponse[] } | null;
  };
};

/**
 * A profile's scores: personal data. Sealed in the log and in the read models; read back from the log, a
 * ScoringCompleted's or ProfileRescored's `pii` stays sealed (privacy/encrypting-event-store.ts): nothing decides
 * on it. The narratives are derived from the scores where a profile is shown (scoring/scorer.ts `describeScores`);
 * events written before that keep theirs in `descriptions`, and those are shown as they were first served.
 */
export type ProfileScores = Scores & { descriptions?: Descriptions; quality?: Quality };

export type ScoringCompleted = {
  type: 'ScoringCompleted';
  data: {
    assessment_id: string;
    subject_id: string;
    profile_id: string;
    /** The id of the nature.assessment.completed event this completion notifies (evt_…). */
    event_id: string;
    scoring_version: string;
    language: Language;
    completed_at: string;
    pii: { profile: ProfileScores } | null;
  };
};
/**
 * A completed assessment scored again with another scoring version by a profile rebuild. The new profile
 * is staged: it is served once its version is activated (ScoringVersionActivated).
 */
export type ProfileRescored = {
  type: 'ProfileRescored';
  data: {
    assessment_id: string;
    subject_id: string;
    profile_id: string;
    scoring_version: string;
    /** The profile served for the assessment when it was rescored. */
    replaces_profile_id: string;
    /** The assessment's language, which its narratives are in (absent from rescorings before French: `en`). */
    language?: Language;
    /** Whether its scores or narratives differ from the one it replaces. */
    changed: boolean;
    completed_at: string;
    rescored_at: string;
    pii: { profile: ProfileScores } | null;
  };
};
/** A changed rescored profile was announced (nature.profile.updated, event `event_id`), once its version was active. */
export type ProfileUpdated = {
  type: 'ProfileUpdated';
  data: {
    assessment_id: string;
    subject_id: string;
    profile_id: string;
    previous_profile_id: string;
    scoring_version: string;
    event_id: string;
    updated_at: string;
  };
};
/**
 * `reason: 'erasure'`: the subject's erasure closed it, before SubjectErased, so no batch in flight lands after that.
 * `subject_id` and `event_id` (nature.assessment.abandoned) are absent from abandons before lifecycle events.
 */
export type AssessmentAbandoned = {
  type: 'AssessmentAbandoned';
  data: { assessment_id: string; abandoned_at: string; reason?: 'erasure'; subject_id?: string; event_id?: string };
};
/** An open assessment reached its expiry: recorded by the leader's expiry watch, announced as nature.assessment.expired. */
export type AssessmentExpired = {
  type: 'AssessmentExpired';
  data: { assessment_id: string; subject_id: string; expires_at: string; expired_at: string; event_id: string };
};

export type AssessmentEvent =
  | AssessmentStarted
  | ResponsesSubmitted
  | ScoringCompleted
  | AssessmentAbandoned
  | AssessmentExpired
  | ProfileRescored
  | ProfileUpdated;

/**
 * Stored states. `expired` is derived from the clock (see statusAt) the moment the expiry passes, and stored once the
 * expiry watch records it (AssessmentExpired), which may be a little later.
 */
export type AssessmentStatus = 'created' | 'in_progress' | 'scoring' | 'completed' | 'abandoned' | 'expired';

export interface Assessment {
  id: string;
  subject_id: string;
  status: AssessmentStatus;
  language: Language;
  requested_language: Language;
  item_set_version: string;
  /** Latest answer per item. */
  answers: Record<string, number>;
  /** The timing the caller sent with each latest answer, if any. */
  timing: Record<string, ItemTiming>;
  /** The profile made at completion. */
  profile_id: string | null;
  /** The version that scored it at completion. */
  scoring_version: string | null;
  /** Its profile in each scoring version, the completion's and any rebuild's. */
  profiles: Record<string, VersionedProfile>;
  /**
   * The profile callers were last told about: the completion's (nature.assessment.completed), then each one a
   * nature.profile.updated announced. Null until completed.
   */
  announced: { profile_id: string; by: 'completion' | 'update' } | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  expires_at: string;
  /** SHA-256 of the client secret a browser presents with a pk key; absent for assessments older than secrets. */
  client_secret_hash?: string;
  /** Absent (false) for assessments started before the caller could choose. */
  result_visible_to_subject?: boolean;
  /** When the subject's erasure closed it (abandoned it while open). */
  erased_at?: string;
}

export interface VersionedProfile {
  profile_id: string;
}

/** Undefined until the assessment's stream has its first event. */
export type AssessmentState = Assessment | undefined;

export function assessmentStream(assessmentId: string): string {
  return `assessment-${assessmentId}`;
}

export function evolveAssessment(state: AssessmentState, event: AssessmentEvent): AssessmentState {
  if (event.type === 'AssessmentStarted') {
    const { assessment_id, created_at, ...rest } = event.data;
    return {
      id: assessment_id,
      ...rest,
      status: 'created',
      answers: {},
      timing: {},
      profile_id: null,
      scoring_version: null,
      profiles: {},
      announced: null,
      created_at,
      updated_at: created_at,
      completed_at: null,
    };
  }
  if (state === undefined) return state;
  switch (event.type) {
    case 'ResponsesSubmitted': {
      // Erased: the answers are gone, and with them any way to score the assessment.
      if (event.data.pii === null) return { ...state, updated_at: event.data.submitted_at };
      const answers = { ...state.answers };
      const timing = { ...state.timing };
      for (const { item_id, value, answered_at, response_time_ms } of event.data.pii.responses) {
        answers[item_id] = value;
        // A new answer brings its own timing, or none: the old answer's never describes it.
        const given: ItemTiming = {
          ...(answered_at !== undefined && { answered_at }),
          ...(response_time_ms !== undefined && { response_time_ms }),
        };
        if (Object.keys(given).length > 0) timing[item_id] = given;
        else delete timing[item_id];
      }
      const status = Object.keys(answers).length === ITEM_COUNT ? 'scoring' : 'in_progress';
      return { ...state, answers, timing, status, updated_at: event.data.submitted_at };
    }
    case 'ScoringCompleted': {
      const { profile_id, scoring_version, completed_at } = event.data;
      const profiles = { ...state.profiles, [scoring_version]: { profile_id } };
      const announced = { profile_id, by: 'completion' as const };
      return { ...state, status: 'completed', profile_id, scoring_version, profiles, announced, completed_at, updated_at: completed_at };
    }
    case 'AssessmentAbandoned': {
      const { abandoned_at, reason } = event.data;
      return { ...state, status: 'abandoned', updated_at: abandoned_at, ...(reason === 'erasure' && { erased_at: abandoned_at }) };
    }
    case 'AssessmentExpired':
      return { ...state, status: 'expired', updated_at: event.data.expired_at };
    case 'ProfileRescored': {
      const { profile_id, scoring_version } = event.data;
      return { ...state, profiles: { ...state.profiles, [scoring_version]: { profile_id } } };
    }
    case 'ProfileUpdated':
      return { ...state, announced: { profile_id: event.data.profile_id, by: 'update' } };
  }
}

/** The version whose profile is served for the assessment: the active version's if it has one, else the completion's. */
export function servedVersion(
  assessment: { profiles: Record<string, unknown>; scoring_version: string | null },
  activeVersion: string | undefined,
): string | null {
  return activeVersion !== undefined && activeVersion in assessment.profiles ? activeVersion : assessment.scoring_version;
}

/** How long after completion a result-visible assessment's client secret still reads the result. */
export const RESULT_VISIBLE_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the client secret of `assessment` may read its result at `now`: the caller started it with
 * result_visible_to_subject, it is completed, and less than a day has passed since.
 */
export function resultReadable(assessment: Pick<Assessment, 'status' | 'completed_at' | 'result_visible_to_subject'>, now: Date): boolean {
  if (assessment.result_visible_to_subject !== true || assessment.status !== 'completed' || assessment.completed_at === null) return false;
  return now.getTime() < Date.parse(assessment.completed_at) + RESULT_VISIBLE_MS;
}

/** The status as of `now`: an open assessment past its expiry is expired. */
export function statusAt(assessment: Pick<Assessment, 'status' | 'expires_at'>, now: Date): AssessmentStatus {
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
  client_secret_hash?: string;
  result_visible_to_subject?: boolean;
  /** The nature.assessment.started event's id (absent from pointers before lifecycle events). */
  event_id?: string;
}

/** What starting an assessment takes, beyond the subject. */
export interface StartAssessment {
  assessment_id: string;
  requested_language: Language;
  client_secret_hash: string;
  /** Absent in a start that does not say: false. */
  result_visible_to_subject?: boolean;
  /** The id it is announced under (nature.assessment.started). */
  event_id: string;
  now: Date;
}

export function assessmentPointer(command: StartAssessment & { subject_id: string }): AssessmentPointer {
  return {
    subject_id: command.subject_id,
    assessment_id: command.assessment_id,
    requested_language: command.requested_language,
    created_at: command.now.toISOString(),
    expires_at: new Date(command.now.getTime() + ASSESSMENT_TTL_MS).toISOString(),
    client_secret_hash: command.client_secret_hash,
    ...(command.result_visible_to_subject === undefined ? {} : { result_visible_to_subject: command.result_visible_to_subject }),
    event_id: command.event_id,
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
        language: pointer.requested_language,
        requested_language: pointer.requested_language,
        item_set_version: ITEM_SET_VERSION,
        created_at: pointer.created_at,
        expires_at: pointer.expires_at,
        ...(pointer.client_secret_hash === undefined ? {} : { client_secret_hash: pointer.client_secret_hash }),
        ...(pointer.result_visible_to_subject === undefined ? {} : { result_visible_to_subject: pointer.result_visible_to_subject }),
        ...(pointer.event_id === undefined ? {} : { event_id: pointer.event_id }),
      },
    },
  ];
}

function openAssessmentOf(state: AssessmentState, subjectId: string, now: Date): Assessment {
  if (state === undefined || state.subject_id !== subjectId) throw new DomainError('not_found', 'No such assessment for this subject.');
  if (state.erased_at !== undefined) throw subjectErasedError(subjectId, state.erased_at);
  if (!isOpen(state, now)) {
    const status = statusAt(state, now);
    throw new DomainError('assessment_not_open', `The assessment is ${status}; only created and in_progress assessments change.`, {
      assessment_status: status,
    });
  }
  return state;
}

/** What scoring needs; its ids are minted only when an assessment is scored. */
export type ScoringCommand = { profile_id: string; event_id: string; scorer: Scorer; now: Date };

/**
 * Keeps only answers that are new or changed: a retried batch decides nothing. The batch that completes
 * the answers is scored in the same decision, so the append that records the last answer records the
 * profile too: one append can complete an assessment, and none leaves it waiting in `scoring`.
 */
export function decideSubmitResponses(
  state: AssessmentState,
  command: { subject_id: string; responses: ItemResponse[]; now: Date; scoring: () => ScoringCommand },
): AssessmentEvent[] {
  const assessment = openAssessmentOf(state, command.subject_id, command.now);
  refuseTiming(assessment, command.responses, command.now);
  const changed = command.responses.filter(({ item_id, value }) => assessment.answers[item_id] !== value);
  if (changed.length === 0) return [];
  const answered = new Set([...Object.keys(assessment.answers), ...changed.map(({ item_id }) => item_id)]).size;
  const submitted: ResponsesSubmitted = {
    type: 'ResponsesSubmitted',
    data: {
      assessment_id: assessment.id,
      subject_id: assessment.subject_id,
      submitted_at: command.now.toISOString(),
      responses_received: answered,
      pii: { responses: changed },
    },
  };
  if (answered < ITEM_COUNT) return [submitted];
  return [submitted, ...decideScoreAssessment(evolveAssessment(assessment, submitted), command.scoring)];
}

/** A reported answered_at must fall in the assessment's life: not before it started, not after now, give or take the skew. */
function refuseTiming(assessment: Assessment, responses: readonly ItemResponse[], now: Date): void {
  const errors = responses.flatMap(({ item_id, answered_at }, index) => {
    if (answered_at === undefined) return [];
    const at = Date.parse(answered_at);
    const problem =
      at < Date.parse(assessment.created_at) - ANSWERED_AT_SKEW_MS
        ? `is before the assessment started (${assessment.created_at}; ${ANSWERED_AT_SKEW_MS / 1000} s of skew is allowed).`
        : at > now.getTime() + ANSWERED_AT_SKEW_MS
          ? `is in the future (the server's clock reads ${now.toISOString()}; ${ANSWERED_AT_SKEW_MS / 1000} s of skew is allowed).`
          : undefined;
    if (problem === undefined) return [];
    return [
      { path: `/responses/${index}/answered_at`, in: 'body', message: `\`responses[${index}].answered_at\` (${item_id}) ${problem}` },
    ];
  });
  if (errors.length > 0) throw new DomainError('validation_failed', `The request body has ${errors.length} invalid field(s).`, { errors });
}

/** The subject is being erased: its assessment, if still open, is closed first, so that a batch in flight conflicts with it. */
export function decideCloseForErasure(state: AssessmentState, command: { event_id: string; now: Date }): AssessmentEvent[] {
  if (state === undefined || !isOpen(state, command.now)) return [];
  const { id: assessment_id, subject_id } = state;
  return [
    {
      type: 'AssessmentAbandoned',
      data: { assessment_id, subject_id, abandoned_at: command.now.toISOString(), reason: 'erasure', event_id: command.event_id },
    },
  ];
}

export function decideAbandonAssessment(
  state: AssessmentState,
  command: { subject_id: string; event_id: string; now: Date },
): AssessmentEvent[] {
  const { id: assessment_id, subject_id } = openAssessmentOf(state, command.subject_id, command.now);
  return [
    {
      type: 'AssessmentAbandoned',
      data: { assessment_id, subject_id, abandoned_at: command.now.toISOString(), event_id: command.event_id },
    },
  ];
}

/**
 * An open assessment whose expiry has passed is recorded expired (and announced); anything else, including one a
 * batch completed or an erasure closed just before, decides nothing. The status it had expired from a moment ago
 * by the clock alone.
 */
export function decideExpireAssessment(state: AssessmentState, command: { event_id: string; now: Date }): AssessmentEvent[] {
  if (state === undefined || state.erased_at !== undefined) return [];
  if (state.status !== 'created' && state.status !== 'in_progress') return [];
  if (command.now.getTime() < Date.parse(state.expires_at)) return [];
  const { id: assessment_id, subject_id, expires_at } = state;
  return [
    {
      type: 'AssessmentExpired',
      data: { assessment_id, subject_id, expires_at, expired_at: command.now.toISOString(), event_id: command.event_id },
    },
  ];
}

/**
 * Scores an assessment that is waiting for it (its last answer just recorded, or recorded by an earlier
 * version that scored later); anything else (already scored, say) decides nothing and mints nothing.
 */
export function decideScoreAssessment(state: AssessmentState, scoring: () => ScoringCommand): AssessmentEvent[] {
  if (state === undefined || state.status !== 'scoring') return [];
  const command = scoring();
  const { scoring_version, ...scores } = command.scorer(state.answers, state.timing);
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
        pii: { profile: scores },
      },
    },
  ];
}

/** Whether two profiles say the same: their scores (the narratives follow from them); quality is not announced. */
const sameScores = (a: ProfileScores, b: ProfileScores) =>
  isDeepStrictEqual(a.natures, b.natures) && isDeepStrictEqual(a.intelligences, b.intelligences);

export interface Rescore {
  /** The version to score with, and its scorer. */
  scoring_version: string;
  scorerOf: (version: string) => Scorer;
  /** The version served now (ScoringVersionActivated), if any was ever activated. */
  active_version: string | undefined;
  /** Announce a changed profile now: only once its version is the active one. */
  notify: boolean;
  profile_id: string;
  event_id: string;
  now: Date;
}

/** The profile callers were last told about, with its version; streams from before `announced` was kept fold to it too. */
function announcedProfile(state: Assessment): { profile_id: string; scoring_version: string } | undefined {
  const profileId = state.announced?.profile_id ?? state.profile_id;
  const version = Object.entries(state.profiles).find(([, profile]) => profile.profile_id === profileId)?.[0];
  return profileId === null || version === undefined ? undefined : { profile_id: profileId, scoring_version: version };
}

/**
 * Scores a completed assessment with another version (unless it already has a profile in it), noting
 * whether the result differs from the profile served now; with `notify` (the version is the one served now),
 * announces its profile once if its scores differ from the profile callers were last told about, in either
 * direction. Assessments not completed, or whose answers were erased, decide nothing.
 */
export function decideRescore(state: AssessmentState, command: Rescore): AssessmentEvent[] {
  if (state?.status !== 'completed' || state.scoring_version === null || Object.keys(state.answers).length !== ITEM_COUNT) return [];
  const answers = state.answers;
  // Each version's scores, worked out once however many comparisons need them.
  const scored = new Map<string, ProfileScores>();
  const scoresIn = (version: string): ProfileScores => {
    let scores = scored.get(version);
    if (scores === undefined) {
      const { scoring_version: _version, ...profile } = command.scorerOf(version)(answers, state.timing);
      scores = profile;
      scored.set(version, scores);
    }
    return scores;
  };
  const events: AssessmentEvent[] = [];
  let target = state.profiles[command.scoring_version];
  if (target === undefined) {
    const served = servedVersion(state, command.active_version)!;
    const replaces = state.profiles[served]!.profile_id;
    target = { profile_id: command.profile_id };
    events.push({
      type: 'ProfileRescored',
      data: {
        assessment_id: state.id,
        subject_id: state.subject_id,
        profile_id: command.profile_id,
        scoring_version: command.scoring_version,
        replaces_profile_id: replaces,
        language: state.language,
        changed: !sameScores(scoresIn(command.scoring_version), scoresIn(served)),
        completed_at: state.completed_at!,
        rescored_at: command.now.toISOString(),
        pii: { profile: scoresIn(command.scoring_version) },
      },
    });
  }
  if (!command.notify) return events;
  // Served now (the version being made active): a change from what callers were last told is announced once,
  // whichever way the switch goes (a rollback to an earlier version included).
  const announced = announcedProfile(state);
  if (announced === undefined || announced.profile_id === target.profile_id) return events;
  if (sameScores(scoresIn(command.scoring_version), scoresIn(announced.scoring_version))) return events;
  events.push({
    type: 'ProfileUpdated',
    data: {
      assessment_id: state.id,
      subject_id: state.subject_id,
      profile_id: target.profile_id,
      previous_profile_id: announced.profile_id,
      scoring_version: command.scoring_version,
      event_id: command.event_id,
      updated_at: command.now.toISOString(),
    },
  });
  return events;
}
