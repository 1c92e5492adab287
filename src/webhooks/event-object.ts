import type { Document } from '../ports/read-models.js';

/** The event object as the API lists it and as a webhook delivers it. */
export function eventObject(doc: Document, livemode: boolean) {
  return {
    id: doc.id,
    object: 'event' as const,
    type: doc.type as 'nature.assessment.completed',
    created_at: doc.created_at as string,
    livemode,
    data: doc.data as { profile_id: string; assessment_id: string; subject_id: string },
  };
}
