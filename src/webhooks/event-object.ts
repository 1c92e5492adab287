import type { EventType } from '../domain/webhook-endpoint.js';
import type { Document } from '../ports/read-models.js';

/** What an event's data holds: ids only, never personal data. */
export interface EventData {
  profile_id: string;
  assessment_id: string;
  subject_id: string;
  /** nature.profile.updated: the profile it replaces, and the scoring version of the new one. */
  previous_profile_id?: string;
  scoring_version?: string;
}

/**
 * An event as the `events` read model holds it and as bus messages carry it: the event object without
 * the environment's `object` and `livemode`.
 */
export type WebhookEvent = { id: string; type: EventType; created_at: string; data: EventData };

/** The event object as the API lists it and as a webhook delivers it. */
export function eventObject(doc: Document, livemode: boolean) {
  return {
    id: doc.id,
    object: 'event' as const,
    type: doc.type as EventType,
    created_at: doc.created_at as string,
    livemode,
    data: doc.data as EventData,
  };
}
