import type { AssessmentAbandoned, AssessmentExpired, AssessmentStarted, ProfileUpdated, ScoringCompleted } from '../domain/assessment.js';
import type { SituationalAssessmentCompleted } from '../domain/situational-assessment.js';
import type { SubjectCreated, SubjectErased } from '../domain/subject.js';
import type { WebhookEvent } from '../ports/collections.js';
import type { Recorded } from '../ports/event-store.js';
import type { CollectionProjection } from '../ports/projection.js';

/** The log's events that callers are told of, each carrying the id of the event object it becomes. */
export type Announced =
  | ScoringCompleted
  | ProfileUpdated
  | SituationalAssessmentCompleted
  | SubjectCreated
  | AssessmentStarted
  | AssessmentAbandoned
  | AssessmentExpired
  | SubjectErased;

export const announcedTypes: readonly Announced['type'][] = [
  'ScoringCompleted',
  'ProfileUpdated',
  'SituationalAssessmentCompleted',
  'SubjectCreated',
  'AssessmentStarted',
  'AssessmentAbandoned',
  'AssessmentExpired',
  'SubjectErased',
];

/** Lifecycle events recorded before they were announced carry no event id: they stay unannounced, as they were. */
export const isAnnounced = (event: Recorded<Announced>): boolean => event.data.event_id !== undefined;

/** The event object an announced event becomes: the webhook's body and GET /v1/nature/events/{id}'s, byte for byte. */
export function eventDocument(event: Announced): WebhookEvent {
  const id = event.data.event_id!;
  switch (event.type) {
    case 'ScoringCompleted': {
      const { subject_id, assessment_id, profile_id, completed_at } = event.data;
      return { id, type: 'nature.assessment.completed', created_at: completed_at, data: { profile_id, assessment_id, subject_id } };
    }
    case 'ProfileUpdated': {
      const { subject_id, assessment_id, profile_id, previous_profile_id, scoring_version, updated_at } = event.data;
      const data = { profile_id, previous_profile_id, assessment_id, subject_id, scoring_version };
      return { id, type: 'nature.profile.updated', created_at: updated_at, data };
    }
    case 'SituationalAssessmentCompleted': {
      const { situational_assessment_id, subject_id, status, completed_at } = event.data;
      return {
        id,
        type: 'situational.assessment.completed',
        created_at: completed_at,
        data: { id: situational_assessment_id, subject_id, status },
      };
    }
    case 'SubjectCreated':
      return { id, type: 'nature.subject.created', created_at: event.data.created_at, data: { subject_id: event.data.subject_id } };
    case 'AssessmentStarted': {
      const { assessment_id, subject_id, language, expires_at, created_at } = event.data;
      return { id, type: 'nature.assessment.started', created_at, data: { assessment_id, subject_id, language, expires_at } };
    }
    case 'AssessmentAbandoned': {
      const { assessment_id, subject_id, reason, abandoned_at } = event.data;
      const data = { assessment_id, subject_id: subject_id!, reason: reason ?? ('requested' as const) };
      return { id, type: 'nature.assessment.abandoned', created_at: abandoned_at, data };
    }
    case 'AssessmentExpired': {
      const { assessment_id, subject_id, expires_at, expired_at } = event.data;
      return { id, type: 'nature.assessment.expired', created_at: expired_at, data: { assessment_id, subject_id, expires_at } };
    }
    case 'SubjectErased':
      return { id, type: 'nature.subject.erased', created_at: event.data.erased_at, data: { subject_id: event.data.subject_id } };
  }
}

/** The `events` collection: the event objects callers receive by webhook and may list to catch up. Ids only, nothing personal. */
export const eventsProjection: CollectionProjection<Announced, 'events'> = {
  name: 'events',
  collection: 'events',
  canHandle: announcedTypes,
  acts: isAnnounced,
  documentId: (event) => event.data.event_id!,
  evolve: (_current, event) => eventDocument(event),
};
