import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { eventTypes } from '../../domain/webhook-endpoint.js';
import { eventResource } from '../event-resource.js';
import { listOf, listQuery } from '../lists.js';
import { exampleIds, id, instantInput, problems, success, text, timestamp } from '../schemas.js';

// The webhook endpoint routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

/** How long a rotated-out secret may keep signing, and how long it does unless the rotation says. */
const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;

const endpointFields = {
  id: z.string().describe('whe_…'),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  enabled_events: z.array(z.enum(eventTypes)),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z.string().nullable(),
  previous_secret_expires_at: timestamp
    .nullable()
    .describe(
      'After a secret rotation: until then deliveries carry a signature with the previous secret too. Null when only the current secret signs.',
    ),
  livemode: z.boolean(),
  created_at: timestamp,
};
export const endpointResource = z.object(endpointFields).meta({ id: 'WebhookEndpoint' });
const createdEndpointResource = z
  .object({
    ...endpointFields,
    secret: z.string().describe('whsec_…: shown only in this response (at creation or rotation). Verify deliveries with it.'),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

/** A signed attempt's request as the example shows it: the sample completion, signed at one moment. */
const exampleBody = JSON.stringify({
  id: exampleIds.event,
  object: 'event',
  type: 'nature.assessment.completed',
  created_at: '2026-11-21T19:32:03.349Z',
  livemode: false,
  data: { profile_id: exampleIds.profile, assessment_id: exampleIds.assessment, subject_id: exampleIds.subject },
});
const attemptRequest = z
  .object({
    headers: z
      .record(z.string(), z.string())
      .describe(
        'The headers this service set: content-type, user-agent, webhook-id, webhook-timestamp and webhook-signature (a signature, never the secret).',
      ),
    body: z.string().describe('The body exactly as sent and signed: the event object, whose data holds ids only.'),
  })
  .meta({
    id: 'WebhookDeliveryRequest',
    examples: [
      {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'NatureProfileAPI-Webhooks/1',
          'webhook-id': exampleIds.event,
          'webhook-timestamp': '1795289524',
          'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        },
        body: exampleBody,
      },
    ],
  });

const deliveryResource = z
  .object({
    id: z.string().describe('whd_…'),
    object: z.literal('webhook_delivery'),
    event_id: z.string(),
    endpoint_id: z.string(),
    attempt: z.number().int(),
    outcome: z
      .enum(['succeeded', 'retrying', 'failed', 'endpoint_gone', 'cancelled'])
      .describe("cancelled: the attempt was due after the event's subject was erased; nothing was sent, and nothing will be."),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    response_excerpt: z
      .string()
      .nullable()
      .describe('The start of the answer, at most 1 KiB; null when nothing was answered, or the answer came from a loopback address.'),
    request: attemptRequest
      .nullable()
      .describe(
        'What this attempt sent. Null when nothing was sent (an address refused, a cancelled attempt) and for attempts recorded before requests were kept.',
      ),
    attempted_at: timestamp,
    next_attempt_at: timestamp.nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: 'WebhookDelivery' });

const url = text(1, 2048).describe(
  'Taken as written: no whitespace, credentials or empty host. Production: https and a public address. Sandbox: http allowed, and loopback where the operator of the server allows it.',
);
const enabledEvents = z
  .array(z.enum(eventTypes))
  .min(1)
  .describe(
    'Default: nature.assessment.completed. Add nature.profile.updated to hear of profiles a rebuild changed, situational.assessment.completed for situational outcomes, and the lifecycle events (nature.subject.created, nature.assessment.started, nature.assessment.abandoned, nature.assessment.expired, nature.subject.erased) to follow each step. A type listed twice is kept once. Only events after the registration are sent.',
  );
const description = text(0, 500).nullable();

const createBody = z.strictObject({
  url,
  enabled_events: enabledEvents.default(['nature.assessment.completed']),
  description: description.default(null),
});

/** Optional, as is every field: an update that changes nothing answers the endpoint as it stands. */
const updateBody = z
  .strictObject({
    url: url.optional(),
    enabled_events: enabledEvents.optional(),
    description: description.optional(),
    status: z
      .enum(['enabled', 'disabled'])
      .optional()
      .describe(
        '"enabled" turns an endpoint disabled by a 410, by exhausted retries or by request back on; "disabled" stops deliveries to it.',
      ),
  })
  .nullish();

/** Optional: fastify reads an absent body as null. */
const rotateBody = z
  .strictObject({
    expire_previous_in: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_SECONDS)
      .optional()
      .describe(
        'Seconds during which the previous secret still signs deliveries beside the new one (default 86400, at most 7 days; 0 stops it at once). Secrets replaced by earlier rotations stop at once.',
      ),
  })
  .nullish();

const emptyBody = z.strictObject({}).nullish();

const idParams = z.strictObject({ id: z.string().describe('whe_…') });

export const createWebhookEndpointSchema = {
  tags: ['webhooks'],
  operationId: 'createWebhookEndpoint',
  summary: 'Register a webhook endpoint',
  description: "Endpoints belong to the key's environment: sandbox events go to sandbox endpoints only. The secret is shown once, here.",
  body: createBody,
  response: {
    201: success('The endpoint, registered, with the secret that signs its deliveries: shown only here.', createdEndpointResource),
    ...problems(),
  },
} satisfies FastifySchema;

export const getWebhookEndpointSchema = {
  tags: ['webhooks'],
  operationId: 'getWebhookEndpoint',
  summary: 'Retrieve a webhook endpoint',
  description: 'Its url, events, status (and why it was disabled); never its secret.',
  params: idParams,
  response: { 200: success('The endpoint; never its secret.', endpointResource), ...problems('not_found') },
} satisfies FastifySchema;

export const updateWebhookEndpointSchema = {
  tags: ['webhooks'],
  operationId: 'updateWebhookEndpoint',
  summary: 'Update a webhook endpoint',
  description:
    'Changes the fields given (validated as at registration) and nothing else; sending the values it has already changes nothing. `"status": "enabled"` turns a disabled endpoint back on: it receives the events that happen from then on (redeliver the ones it missed). Deliveries still retrying go to the new url.',
  params: idParams,
  body: updateBody,
  response: { 200: success('The endpoint, as updated.', endpointResource), ...problems('not_found') },
} satisfies FastifySchema;

export const rotateWebhookEndpointSecretSchema = {
  tags: ['webhooks'],
  operationId: 'rotateWebhookEndpointSecret',
  summary: "Rotate a webhook endpoint's secret",
  description:
    'A new secret, shown once, here. Until `previous_secret_expires_at` every delivery carries two signatures in webhook-signature (`v1,<new> v1,<previous>`), so receivers holding either secret verify it while you deploy the new one; after it, only the new one.',
  params: idParams,
  body: rotateBody,
  response: {
    200: success('The endpoint with its new secret: shown only here.', createdEndpointResource),
    ...problems('not_found'),
  },
} satisfies FastifySchema;

export const sendTestWebhookEventSchema = {
  tags: ['webhooks'],
  operationId: 'sendTestWebhookEvent',
  summary: 'Send a test event to a webhook endpoint',
  description:
    "Sandbox only (production answers 403 `sandbox_only`: a sample completion must never reach a live integration). Queues a signed sample `nature.assessment.completed` for this endpoint, even a disabled one; 202 with the event. Its ids end in `TEST` and name nothing; it is sent once, listed in the endpoint's deliveries, never retried, and never disables the endpoint.",
  params: idParams,
  body: emptyBody,
  response: {
    202: success('The test event, queued for this endpoint.', eventResource),
    ...problems('not_found', 'sandbox_only'),
  },
} satisfies FastifySchema;

export const replayFailedDeliveriesSchema = {
  tags: ['webhooks'],
  operationId: 'replayFailedWebhookDeliveries',
  summary: 'Replay the failed deliveries of a webhook endpoint',
  description:
    'Queues again, for this endpoint only, every event whose latest attempt here failed (its retries ran out, or the endpoint answered 410) at or after `since`; events delivered since, by a retry or a redelivery, are left alone. ' +
    "They are sent through the endpoint's delivery slots, a few at a time, oldest failure first, each as a redelivery (its attempts listed as usual, superseding any retry of the event still scheduled here). At most 1,000 a call: `remaining` says how many are left, to replay with `since` set after `last_failed_at`. The endpoint must be enabled.",
  params: idParams,
  body: z.strictObject({
    since: instantInput.describe('Replay the failures at or after this UTC timestamp, such as 2026-11-28T00:00:00Z.'),
  }),
  response: {
    202: success(
      'What was queued.',
      z
        .object({
          object: z.literal('replay'),
          endpoint_id: id('whe', exampleIds.endpoint),
          since: timestamp,
          queued: z
            .number()
            .int()
            .min(0)
            .meta({ examples: [12] }),
          remaining: z
            .number()
            .int()
            .min(0)
            .meta({ examples: [0] }),
          last_failed_at: timestamp.nullable().describe('When the last event queued last failed; null when none was.'),
        })
        .meta({ id: 'WebhookReplay' }),
    ),
    ...problems('not_found', 'validation_failed'),
  },
} satisfies FastifySchema;

export const listWebhookEndpointsSchema = {
  tags: ['webhooks'],
  operationId: 'listWebhookEndpoints',
  summary: 'List webhook endpoints',
  description: "Newest first: the endpoints of the key's environment.",
  querystring: z.strictObject(listQuery),
  response: {
    200: success("A page of the environment's webhook endpoints, newest first.", listOf(endpointResource)),
    ...problems('invalid_cursor'),
  },
} satisfies FastifySchema;

export const deleteWebhookEndpointSchema = {
  tags: ['webhooks'],
  operationId: 'deleteWebhookEndpoint',
  summary: 'Delete a webhook endpoint',
  description: 'The endpoint is removed and is sent no new events.',
  params: idParams,
  response: {
    200: success('The endpoint, deleted.', z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })),
    ...problems('not_found'),
  },
} satisfies FastifySchema;

export const listWebhookDeliveriesSchema = {
  tags: ['webhooks'],
  operationId: 'listWebhookDeliveries',
  summary: "List an endpoint's delivery attempts",
  description:
    'Newest first: every attempt with its status code or error, latency, what it sent (`request`) and when the next one is due. A retry superseded by a redelivery of the same event to this endpoint is not made: its delivery ends with the attempt that scheduled it.',
  params: idParams,
  querystring: z.strictObject(listQuery),
  response: {
    200: success("A page of the endpoint's delivery attempts, newest first.", listOf(deliveryResource)),
    ...problems('invalid_cursor', 'not_found'),
  },
} satisfies FastifySchema;
