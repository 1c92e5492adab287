import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createEndpoint, deleteEndpoint } from '../../commands/webhooks.js';
import { type WebhookEndpoint, eventTypes } from '../../domain/webhook-endpoint.js';
import { endpointUrlProblem } from '../../webhooks/address-guard.js';
import { listOf, listPage, listQuery } from '../lists.js';
import { ProblemError } from '../problem.js';
import { problems, text, timestamp } from '../schemas.js';

const endpointFields = {
  id: z.string().describe('whe_…'),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  enabled_events: z.array(z.enum(eventTypes)),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z.string().nullable(),
  livemode: z.boolean(),
  created_at: timestamp,
};
const endpointResource = z.object(endpointFields).meta({ id: 'WebhookEndpoint' });
const createdEndpointResource = z
  .object({ ...endpointFields, secret: z.string().describe('whsec_…: shown only in this response. Verify deliveries with it.') })
  .meta({ id: 'CreatedWebhookEndpoint' });

const deliveryResource = z
  .object({
    id: z.string().describe('whd_…'),
    object: z.literal('webhook_delivery'),
    event_id: z.string(),
    endpoint_id: z.string(),
    attempt: z.number().int(),
    outcome: z.enum(['succeeded', 'retrying', 'failed', 'endpoint_gone']),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    response_excerpt: z.string().nullable().describe('The start of the answer, at most 1 KiB.'),
    attempted_at: timestamp,
    next_attempt_at: timestamp.nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: 'WebhookDelivery' });

const createBody = z.strictObject({
  url: text(1, 2048).describe('Taken as written: no whitespace, credentials or empty host. Production: https and a public address. Sandbox: http and loopback allowed.'),
  enabled_events: z
    .array(z.enum(eventTypes))
    .min(1)
    .default(['nature.assessment.completed'])
    .describe(
      'Default: nature.assessment.completed. Add nature.profile.updated to hear of profiles a rebuild changed. A type listed twice is kept once. Only events after the registration are sent.',
    ),
  description: text(0, 500).nullable().default(null),
});

const idParams = z.strictObject({ id: z.string().describe('whe_…') });

function toEndpointResource(endpoint: WebhookEndpoint, livemode: boolean): z.infer<typeof endpointResource> {
  const { secret: _secret, ...shown } = endpoint;
  return { ...shown, object: 'webhook_endpoint', livemode };
}

export function registerWebhookEndpointRoutes(app: FastifyInstance, clock: () => Date): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/v1/nature/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint',
        description: "Endpoints belong to the key's environment: sandbox events go to sandbox endpoints only. The secret is shown once, here.",
        body: createBody,
        response: { 201: createdEndpointResource, ...problems(400, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const problem = endpointUrlProblem(request.body.url, request.env.livemode);
      if (problem) throw new ProblemError('validation_failed', problem, { errors: [{ path: '/url', in: 'body', message: problem }] });
      const endpoint = await createEndpoint(request.env, request.body, { request_id: request.id, key_id: request.apiKey.id }, clock());
      return reply.code(201).send({ ...toEndpointResource(endpoint, request.env.livemode), secret: endpoint.secret });
    },
  );

  routes.get(
    '/v1/nature/webhook_endpoints/:id',
    { schema: { tags: ['webhooks'], summary: 'Retrieve a webhook endpoint', params: idParams, response: { 200: endpointResource, ...problems(404) } } },
    async (request) => {
      const doc = await request.env.readModels.get('webhook_endpoints', request.params.id);
      if (!doc) throw new ProblemError('not_found', `No webhook endpoint ${request.params.id}.`);
      return toEndpointResource(doc as unknown as WebhookEndpoint, request.env.livemode);
    },
  );

  routes.get(
    '/v1/nature/webhook_endpoints',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'List webhook endpoints',
        querystring: z.strictObject(listQuery),
        response: { 200: listOf(endpointResource), ...problems(400, 422) },
      },
    },
    async (request) =>
      listPage(request.env.readModels, 'webhook_endpoints', request.query, {}, (doc) => toEndpointResource(doc as unknown as WebhookEndpoint, request.env.livemode)),
  );

  routes.delete(
    '/v1/nature/webhook_endpoints/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint',
        params: idParams,
        response: { 200: z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) }), ...problems(404) },
      },
    },
    async (request) => {
      await deleteEndpoint(request.env, request.params.id, { request_id: request.id, key_id: request.apiKey.id }, clock());
      return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );

  routes.get(
    '/v1/nature/webhook_endpoints/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: "List an endpoint's delivery attempts",
        description: 'Newest first: every attempt with its status code or error, latency and when the next one is due.',
        params: idParams,
        querystring: z.strictObject(listQuery),
        response: { 200: listOf(deliveryResource), ...problems(400, 404, 422) },
      },
    },
    async (request) => {
      if (!(await request.env.readModels.get('webhook_endpoints', request.params.id))) {
        throw new ProblemError('not_found', `No webhook endpoint ${request.params.id}.`);
      }
      return listPage(request.env.readModels, 'webhook_deliveries', request.query, { endpoint_id: request.params.id }, (doc) => ({
        ...(doc as unknown as Omit<z.infer<typeof deliveryResource>, 'object' | 'livemode'>),
        object: 'webhook_delivery' as const,
        livemode: request.env.livemode,
      }));
    },
  );
}
