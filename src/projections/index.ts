import type { Collection, FieldOf } from '../ports/collections.js';
import type { Projection } from '../ports/projection.js';
import { assessmentLinksProjection } from './assessment-links.js';
import { assessmentsProjection } from './assessments.js';
import { eventsProjection } from './events.js';
import { profilesProjection } from './profiles.js';
import { scoringVersionsProjection } from './scoring-versions.js';
import { situationalAssessmentsProjection } from './situational-assessments.js';
import { subjectsProjection } from './subjects.js';
import { usageProjection } from './usage.js';
import { webhookDeliveriesProjection } from './webhook-deliveries.js';
import { webhookEndpointsProjection } from './webhook-endpoints.js';

export const projections: Projection[] = [
  subjectsProjection,
  assessmentsProjection,
  profilesProjection,
  eventsProjection,
  webhookEndpointsProjection,
  webhookDeliveriesProjection,
  scoringVersionsProjection,
  usageProjection,
  situationalAssessmentsProjection,
  assessmentLinksProjection,
];

/** Fields that lists filter on; each read-model adapter indexes them. */
export const indexedFields: { [C in Collection]: { collection: C; field: FieldOf<C> } }[Collection][] = [
  { collection: 'subjects', field: 'external_ref' },
  { collection: 'subjects', field: 'status' },
  { collection: 'assessments', field: 'subject_id' },
  // The leader's expiry watch finds open assessments by the hour they expire in.
  { collection: 'assessments', field: 'expiry_hour' },
  { collection: 'profiles', field: 'subject_id' },
  { collection: 'profiles', field: 'assessment_id' },
  { collection: 'webhook_endpoints', field: 'status' },
  { collection: 'webhook_deliveries', field: 'endpoint_id' },
  // The dashboard's event page lists the event's attempts on every endpoint.
  { collection: 'webhook_deliveries', field: 'event_id' },
  // The dashboard's events list filters by type.
  { collection: 'events', field: 'type' },
  { collection: 'situational_assessments', field: 'subject_id' },
  { collection: 'assessment_links', field: 'subject_id' },
];
