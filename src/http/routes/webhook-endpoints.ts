import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createEndpoint, deleteEndpoint, rotateEndpointSecret, updateEndpoint } from '../../commands/webhooks.js';
import { eventTypes, previousSecretExpiresAt, type WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { type EndpointRules, endpointUrlProblem } from '../../webhooks/address-guard.js';
import { queueTestEvent } from '../../webhooks/dispatcher.js';
import { eventObject } from '../../webhooks/event-object.js';
import { testCompletion } from '../../webhooks/test-event.js';
import { eventMetadata } from '../event-metadata.js';
import { eventResource } from '../event-resource.js';
import { listOf, listPage, listQuery } from '../lists.js';
import { ProblemError } from '../problem.js';
import { problems, success, text, timestamp } from '../schemas.js';

/** How long a rotated-out secret may keep signing. */
const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
const DEFAULT_OVERLAP_SECONDS = 24 * 3600;

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
const endpointResource = z.object(endpointFields).meta({ id: 'WebhookEndpoint' });
const createdEndpointResource = z
  .object({
    ...endpointFields,
    secret: z.string().describe('whsec_…: shown only in this response (at creation or rotation). Verify deliveries with it.'),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

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
    'Default: nature.assessment.completed. Add nature.profile.updated to hear of profiles a rebuild changed. A type listed twice is kept once. Only events after the registration are sent.',
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

function toEndpointResource(endpoint: WebhookEndpoint, livemode: boolean, now: Date): z.infer<typeof endpointResource> {
  const { secret: _secret, previous_secrets: _previous, ...shown } = endpoint;
  return { ...shown, previous_secret_expires_at: previousSecretExpiresAt(endpoint, now), object: 'webhook_endpoint', livemode };
}

/** The endpoint as the read models hold it, or 404. */
export async function requireEndpoint(readModels: ReadModelStore, id: string): Promise<WebhookEndpoint> {
  const doc = await readModels.get('webhook_endpoints', id);
  if (!doc) throw new ProblemError('not_found', `No webhook endpoint ${id}.`);
  return doc;
}

function refuseUrl(value: string, rules: EndpointRules): void {
  const problem = endpointUrlProblem(value, rules);
  // The guard's reasons are whole sentences (deliveries quote them too): the field's name goes before them.
  if (problem)
    throw new ProblemError('validation_failed', problem, { errors: [{ path: '/url', in: 'body', message: `\`url\`: ${problem}` }] });
}

export function registerWebhookEndpointRoutes(app: FastifyInstance, clock: () => Date): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/v1/nature/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint',
        description:
          "Endpoints belong to the key's environment: sandbox events go to sandbox endpoints only. The secret is shown once, here.",
        body: createBody,
        response: {
          201: success('The endpoint, registered, with the secret that signs its deliveries: shown only here.', createdEndpointResource),
          ...problems(),
        },
      },
    },
    async (request, reply) => {
      refuseUrl(request.body.url, request.env.endpointRules);
      const now = clock();
      const { endpoint, replayedAt } = await createEndpoint(request.env, request.body, eventMetadata(request), now);
      return reply.code(201).send({ ...toEndpointResource(endpoint, request.env.livemode, replayedAt ?? now), secret: endpoint.secret });
    },
  );

  routes.get(
    '/v1/nature/webhook_endpoints/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhookEndpoint',
        summary: 'Retrieve a webhook endpoint',
        description: 'Its url, events, status (and why it was disabled); never its secret.',
        params: idParams,
        response: { 200: success('The endpoint; never its secret.', endpointResource), ...problems('not_found') },
      },
    },
    async (request) => toEndpointResource(await requireEndpoint(request.env.readModels, request.params.id), request.env.livemode, clock()),
  );

  routes.patch(
    '/v1/nature/webhook_endpoints/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint',
        description:
          'Changes the fields given (validated as at registration) and nothing else; sending the values it has already changes nothing. `"status": "enabled"` turns a disabled endpoint back on: it receives the events that happen from then on (redeliver the ones it missed). Deliveries still retrying go to the new url.',
        params: idParams,
        body: updateBody,
        response: { 200: success('The endpoint, as updated.', endpointResource), ...problems('not_found') },
      },
    },
    async (request) => {
      const changes = request.body ?? {};
      if (changes.url !== undefined) refuseUrl(changes.url, request.env.endpointRules);
      const now = clock();
      const { endpoint, replayedAt } = await updateEndpoint(request.env, request.params.id, changes, eventMetadata(request), now);
      return toEndpointResource(endpoint, request.env.livemode, replayedAt ?? now);
    },
  );

  routes.post(
    '/v1/nature/webhook_endpoints/:id/rotate_secret',
    {
      schema: {
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
      },
    },
    async (request) => {
      const now = clock();
      const overlap = request.body?.expire_previous_in ?? DEFAULT_OVERLAP_SECONDS;
      const { endpoint, replayedAt } = await rotateEndpointSecret(request.env, request.params.id, overlap, eventMetadata(request), now);
      return { ...toEndpointResource(endpoint, request.env.livemode, replayedAt ?? now), secret: endpoint.secret };
    },
  );

  routes.post(
    '/v1/nature/webhook_endpoints/:id/test',
    {
      schema: {
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
      },
    },
    async (request, reply) => {
      if (request.env.livemode) throw new ProblemError('sandbox_only', 'Test events are sent in the sandbox only: use a test_ key.');
      const endpoint = await requireEndpoint(request.env.readModels, request.params.id);
      const event = testCompletion(clock());
      await queueTestEvent(request.env.bus, event, endpoint.id);
      return reply.code(202).send(eventObject(event, request.env.livemode));
    },
  );

  routes.get(
    '/v1/nature/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: "Newest first: the endpoints of the key's environment.",
        querystring: z.strictObject(listQuery),
        response: {
          200: success("A page of the environment's webhook endpoints, newest first.", listOf(endpointResource)),
          ...problems('invalid_cursor'),
        },
      },
    },
    async (request) => {
      const now = clock();
      return listPage(request.env.readModels, 'webhook_endpoints', request.query, {}, (doc) =>
        toEndpointResource(doc, request.env.livemode, now),
      );
    },
  );

  routes.delete(
    '/v1/nature/webhook_endpoints/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: 'The endpoint is removed and is sent no new events.',
        params: idParams,
        response: {
          200: success(
            'The endpoint, deleted.',
            z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) }),
          ),
          ...problems('not_found'),
        },
      },
    },
    async (request) => {
      await deleteEndpoint(request.env, request.params.id, eventMetadata(request), clock());
      return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );

  routes.get(
    '/v1/nature/webhook_endpoints/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: "List an endpoint's delivery attempts",
        description: 'Newest first: every attempt with its status code or error, latency and when the next one is due.',
        params: idParams,
        querystring: z.strictObject(listQuery),
        response: {
          200: success("A page of the endpoint's delivery attempts, newest first.", listOf(deliveryResource)),
          ...problems('invalid_cursor', 'not_found'),
        },
      },
    },
    async (request) => {
      await requireEndpoint(request.env.readModels, request.params.id);
      return listPage(request.env.readModels, 'webhook_deliveries', request.query, { endpoint_id: request.params.id }, (doc) => ({
        ...doc,
        object: 'webhook_delivery' as const,
        livemode: request.env.livemode,
      }));
    },
  );
}
