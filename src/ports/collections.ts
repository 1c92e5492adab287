import type { Assessment } from '../domain/assessment.js';
import type { AssessmentLink } from '../domain/assessment-link.js';
import type { Consent } from '../domain/subject.js';
import type { WebhookDeliveryAttempted } from '../domain/webhook-delivery.js';
import type { EventType, WebhookEndpoint } from '../domain/webhook-endpoint.js';
import type { Language } from '../scoring/languages.js';

/**
 * What each read-model collection holds: the one shape the projections write and the API reads, so a field
 * renamed on one side fails to compile on the other.
 */

/** A read model's document: a JSON object with an id; the rest is its collection's. */
export interface Document {
  id: string;
}

/** A document of a collection with no declared shape (a store's own tests): any JSON fields. */
export type JsonDocument = Document & Record<string, unknown>;

/**
 * A personal value as a read model keeps it: the log's sealed `pii`, copied without being opened, with the id
 * of the event whose envelope it is (the envelope is bound to its subject and event). Opened only to answer a
 * request, so replay and rebuild decrypt nothing, and a read model's files, dumps and oplog hold no plain
 * personal data.
 */
export interface SealedPart {
  event: string;
  iv: string;
  ct: string;
}

/**
 * A subject: `claimed` once its external id is reserved, `pending` once created, `active` once its consent is
 * recorded (the API shows only these), `erased` with only what outlives the erasure.
 */
export type SubjectDocument =
  | { id: string; status: 'claimed'; external_ref: string }
  | { id: string; status: 'pending'; external_ref?: string; pii: SealedPart; consent: null; created_at: string }
  | { id: string; status: 'active'; external_ref?: string; pii: SealedPart; consent: Consent; created_at: string }
  | { id: string; status: 'erased'; consent: Consent | null; created_at?: string; erased_at: string };

/**
 * An assessment as the read model keeps it: the domain's state without its answers. While it is unscored they
 * stay sealed as the log holds them, one part per accepted batch in log order (the API opens them to tell
 * which items are answered); once it is scored every item is, and they go.
 */
export type StoredAssessment = Omit<Assessment, 'answers' | 'timing'> & {
  responses: SealedPart[];
  /**
   * While it is open, the hour its expiry falls in (`2026-12-06T14`): where the leader's expiry watch finds it with the
   * equality lists every store offers.
   */
  expiry_hour?: string;
};

/** An assessment of an erased subject: that there was one and how far it got. */
export type ErasedAssessment = Pick<StoredAssessment, 'id' | 'subject_id' | 'status' | 'created_at' | 'expires_at'> & { erased: true };

/** Whether every item is answered: a scored assessment's answers are all there, so its document keeps none. */
export const allAnswered = (assessment: { status: string }) => assessment.status === 'completed';

/**
 * A profile in one scoring version, its scores and narratives sealed (`pii`). Documents written before rebuilds
 * existed have no `origin` (completions) and may have no `completed_at`.
 */
export interface ProfileDocument {
  id: string;
  subject_id: string;
  assessment_id: string;
  scoring_version: string;
  origin?: 'completion' | 'rebuild';
  completed_at?: string;
  created_at: string;
  /** The language its narratives are told in, the assessment's. */
  language: Language;
  pii: SealedPart;
}

/** A profile of an erased subject: where it came from, nothing personal. */
export type ErasedProfile = Pick<
  ProfileDocument,
  'id' | 'subject_id' | 'assessment_id' | 'scoring_version' | 'origin' | 'completed_at' | 'created_at'
> & { erased: true };

/** What an assessment's event's data holds: ids only, never personal data. */
export interface AssessmentEventData {
  profile_id: string;
  assessment_id: string;
  subject_id: string;
  /** nature.profile.updated: the profile it replaces, and the scoring version of the new one. */
  previous_profile_id?: string;
  scoring_version?: string;
}

/** What situational.assessment.completed's data holds: the situational assessment's id and how it ended. */
export interface SituationalEventData {
  id: string;
  subject_id: string;
  status: 'completed' | 'failed';
}

/** What a subject's lifecycle events hold: nature.subject.created and nature.subject.erased. */
export interface SubjectEventData {
  subject_id: string;
}

/** What an assessment's lifecycle events hold: started, abandoned and expired. */
export interface AssessmentLifecycleData {
  assessment_id: string;
  subject_id: string;
  /** nature.assessment.started and nature.assessment.expired: when it expires (expired) unless completed. */
  expires_at?: string;
  /** nature.assessment.started: the language it is given in. */
  language?: Language;
  /** nature.assessment.abandoned: the caller asked, or the subject's erasure closed it. */
  reason?: 'requested' | 'erasure';
}

type EventOf<T extends EventType, D> = { id: string; type: T; created_at: string; data: D };

/**
 * An event as the `events` read model holds it and as bus messages carry it: the event object without
 * the environment's `object` and `livemode`. Ids only, never personal data.
 */
export type WebhookEvent =
  | EventOf<'nature.assessment.completed' | 'nature.profile.updated', AssessmentEventData>
  | EventOf<'situational.assessment.completed', SituationalEventData>
  | EventOf<'nature.subject.created' | 'nature.subject.erased', SubjectEventData>
  | EventOf<'nature.assessment.started' | 'nature.assessment.abandoned' | 'nature.assessment.expired', AssessmentLifecycleData>;

/**
 * Whether the event tells of its subject's erasure: sent and redelivered after it, where the subject's other events
 * are not (ids only, and a receiver must hear of the erasure to act on it).
 */
export const tellsOfErasure = (event: WebhookEvent): boolean =>
  event.type === 'nature.subject.erased' || (event.type === 'nature.assessment.abandoned' && event.data.reason === 'erasure');

/** One delivery attempt, as the log records it. */
export type WebhookDelivery = { id: string } & Omit<WebhookDeliveryAttempted['data'], 'delivery_id'>;

/**
 * A situational assessment: pending until the leader reads it, then completed (its result sealed under the subject's
 * key, as `pii`) or failed for good. The situation's text stays in the log only.
 */
export interface SituationalAssessmentDocument {
  id: string;
  subject_id: string;
  profile_id: string;
  language: Language;
  status: 'pending' | 'completed' | 'failed';
  failure_code?: 'situation_unclear';
  method_version?: string;
  created_at: string;
  completed_at?: string;
  pii?: SealedPart;
}

/** A situational assessment of an erased subject: that there was one and how it ended. */
export type ErasedSituationalAssessment = Pick<
  SituationalAssessmentDocument,
  'id' | 'subject_id' | 'status' | 'created_at' | 'completed_at'
> & { erased: true };

/** The one document `current`: the scoring version served and every one ever activated. */
export interface ScoringVersions {
  id: 'current';
  active: string;
  activated: string[];
  activated_at: string;
}

/** An assessment not completed yet, in the usage collection: the key that sent its latest batch. Its id is the assessment's stream. */
export type UsageOpenAssessment = { id: string; key_id: string | null };

/** A hosted assessment link: the link as the domain folds it, its return URL sealed as the log holds it. */
export type AssessmentLinkDocument = AssessmentLink & { return_url: SealedPart };

/** A link of an erased subject: revoked by the erasure, with nothing that could name the person. */
export type ErasedAssessmentLink = Pick<AssessmentLinkDocument, 'id' | 'subject_id' | 'created_at' | 'expires_at'> & { erased: true };

/** Every collection by name, with the type of its documents. */
export interface Collections {
  subjects: SubjectDocument;
  assessments: StoredAssessment | ErasedAssessment;
  profiles: ProfileDocument | ErasedProfile;
  events: WebhookEvent;
  webhook_endpoints: WebhookEndpoint;
  webhook_deliveries: WebhookDelivery;
  scoring_versions: ScoringVersions;
  situational_assessments: SituationalAssessmentDocument | ErasedSituationalAssessment;
  /** Its completions are counted in the collection's counters (domain/usage.ts). */
  usage: UsageOpenAssessment;
  assessment_links: AssessmentLinkDocument | ErasedAssessmentLink;
}

export type Collection = keyof Collections;

/** The documents of collection `C`; of a collection not declared here, untyped JSON. */
export type DocumentOf<C extends string> = C extends Collection ? Collections[C] : JsonDocument;

/** A top-level field of some document of `C` (any variant of it): what a list may filter on. */
export type FieldOf<C extends Collection> = Collections[C] extends infer D ? (D extends unknown ? keyof D & string : never) : never;
