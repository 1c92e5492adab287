import { eventTypes } from '../domain/webhook-endpoint.js';
import type { Config } from '../settings/config.js';
import { duration } from './docs/pages.js';
import { exampleOf } from './openapi-examples.js';
import type { Json } from './openapi-problems.js';
import { exampleIds } from './schemas.js';

const summaries: Record<string, string> = {
  'nature.assessment.completed': 'An assessment was completed and scored: `data.profile_id` is its profile.',
  'nature.profile.updated': 'A profile rebuild re-scored a completed assessment: `data.profile_id` replaces `data.previous_profile_id`.',
  'situational.assessment.completed':
    'A situational assessment was read: `data.status` is completed or failed; GET /v1/situational/assessments/{data.id} has its result. Endpoints opt in to it.',
  'nature.subject.created': 'A subject was created (its consent recorded): `data.subject_id`, the id alone. Endpoints opt in to it.',
  'nature.assessment.started':
    'An assessment was started: its id, its subject, its language and when it expires unless completed. Endpoints opt in to it.',
  'nature.assessment.abandoned':
    'An open assessment was closed unfinished: `data.reason` is `requested` (the caller abandoned it) or `erasure` (the subject’s erasure closed it; sent even though the subject is erased). Endpoints opt in to it.',
  'nature.assessment.expired':
    'An open assessment reached its expiry unfinished: sent when the expiry passes (within the server’s expiry check, 15 s by default), not when someone next reads it. Endpoints opt in to it.',
  'nature.subject.erased':
    'A subject was erased: `data.subject_id`, the id alone, never personal data. Sent although the subject is erased, so you can erase your own copy. Endpoints opt in to it.',
};

const operationIds: Record<string, string> = {
  'nature.assessment.completed': 'assessmentCompleted',
  'nature.profile.updated': 'profileUpdated',
  'situational.assessment.completed': 'situationalAssessmentCompleted',
  'nature.subject.created': 'subjectCreated',
  'nature.assessment.started': 'assessmentStarted',
  'nature.assessment.abandoned': 'assessmentAbandoned',
  'nature.assessment.expired': 'assessmentExpired',
  'nature.subject.erased': 'subjectErased',
};

const signatureHeaders: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id, the same in every attempt: dedupe on it (deliveries are at least once).",
    schema: { type: 'string', pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$' },
    example: exampleIds.event,
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'Unix seconds when this attempt was signed: refuse deliveries far from your clock (Standard Webhooks libraries allow 5 minutes).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795288857',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed with the base64-decoded part of the endpoint secret after `whsec_`. ' +
      'During a secret rotation, space-separated signatures with the new and the previous secret: accept the delivery when any one verifies.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

const examples: Record<string, Json> = {
  'nature.assessment.completed': { profile_id: exampleIds.profile, assessment_id: exampleIds.assessment, subject_id: exampleIds.subject },
  'nature.profile.updated': {
    profile_id: exampleIds.profile,
    assessment_id: exampleIds.assessment,
    subject_id: exampleIds.subject,
    previous_profile_id: exampleIds.previousProfile,
    scoring_version: 'mn76-v2',
  },
  'situational.assessment.completed': { id: exampleIds.situational, subject_id: exampleIds.subject, status: 'completed' },
  'nature.subject.created': { subject_id: exampleIds.subject },
  'nature.assessment.started': {
    assessment_id: exampleIds.assessment,
    subject_id: exampleIds.subject,
    language: 'en',
    expires_at: '2026-12-06T09:30:00.000Z',
  },
  'nature.assessment.abandoned': { assessment_id: exampleIds.assessment, subject_id: exampleIds.subject, reason: 'requested' },
  'nature.assessment.expired': {
    assessment_id: exampleIds.assessment,
    subject_id: exampleIds.subject,
    expires_at: '2026-12-06T09:30:00.000Z',
  },
  'nature.subject.erased': { subject_id: exampleIds.subject },
};

/** The document's `webhooks`: one signed POST per event type, its body the event object of GET /v1/nature/events/{id}. */
/** The webhooks section; what it says of deliveries follows this server's own settings, as the guide does. */
export function webhooks(schemas: Json, delivery: Config['webhooks']): Json {
  const timeout = duration(delivery.timeoutMs);
  const schedule = delivery.retryScheduleMs.map((ms) => duration(ms, true)).join(', ');
  return Object.fromEntries(
    eventTypes.map((type) => {
      const schema = { allOf: [{ $ref: '#/components/schemas/Event' }, { properties: { type: { const: type } } }] };
      const example = { ...(exampleOf(schema, schemas) as Json), type, ...(examples[type] && { data: examples[type] }) };
      return [
        type,
        {
          post: {
            operationId: operationIds[type] ?? type.replace(/\W+(\w)/g, (_match, letter: string) => letter.toUpperCase()),
            tags: ['webhooks'],
            summary: type,
            description:
              `${summaries[type] ?? `The ${type} event.`} Sent to each enabled endpoint of the environment listening to it, following Standard Webhooks. ` +
              `A 2xx within ${timeout} is a delivery; anything else is retried with backoff (about ${schedule} after each failed attempt); ` +
              'when the retries run out, or on a 410, the endpoint is disabled.',
            security: [],
            parameters: signatureHeaders,
            requestBody: { required: true, content: { 'application/json': { schema, example } } },
            responses: {
              '200': { description: `Any 2xx answer within ${timeout}: delivered. The body is ignored.` },
              '410': { description: 'Gone: the endpoint is disabled and receives nothing more until it is enabled again.' },
            },
          },
        },
      ];
    }),
  );
}
