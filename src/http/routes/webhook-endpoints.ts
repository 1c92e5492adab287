import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { createEndpoint, deleteEndpoint, rotateEndpointSecret, updateEndpoint } from '../../commands/webhooks.js';
import { previousSecretExpiresAt, type WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import type { EventMetadata } from '../../ports/event-store.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { type EndpointRules, endpointUrlProblem } from '../../webhooks/address-guard.js';
import { queueTestEvent } from '../../webhooks/dispatcher.js';
import { eventObject } from '../../webhooks/event-object.js';
import { replayFailed } from '../../webhooks/replay-failed.js';
import { testCompletion } from '../../webhooks/test-event.js';
import { eventMetadata } from '../event-metadata.js';
import { fieldError } from '../field-errors.js';
import { listPage } from '../lists.js';
import { ProblemError } from '../problem.js';
import type { Clock, RouteReply, RouteRequest } from '../route-handler.js';
import {
  createWebhookEndpointSchema,
  DEFAULT_OVERLAP_SECONDS,
  deleteWebhookEndpointSchema,
  type endpointResource,
  getWebhookEndpointSchema,
  listWebhookDeliveriesSchema,
  listWebhookEndpointsSchema,
  replayFailedDeliveriesSchema,
  rotateWebhookEndpointSecretSchema,
  sendTestWebhookEventSchema,
  updateWebhookEndpointSchema,
} from './webhook-endpoints-schemas.js';

export function registerWebhookEndpointRoutes(app: FastifyInstance, clock: Clock): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post('/v1/nature/webhook_endpoints', { schema: createWebhookEndpointSchema }, (request, reply) =>
    createWebhookEndpoint(request, reply, clock),
  );
  routes.get('/v1/nature/webhook_endpoints/:id', { schema: getWebhookEndpointSchema }, (request) => getWebhookEndpoint(request, clock));
  routes.patch('/v1/nature/webhook_endpoints/:id', { schema: updateWebhookEndpointSchema }, (request) =>
    updateWebhookEndpoint(request, clock),
  );
  routes.post('/v1/nature/webhook_endpoints/:id/rotate_secret', { schema: rotateWebhookEndpointSecretSchema }, (request) =>
    rotateWebhookEndpointSecret(request, clock),
  );
  routes.post('/v1/nature/webhook_endpoints/:id/test', { schema: sendTestWebhookEventSchema }, (request, reply) =>
    sendTestWebhookEvent(request, reply, clock),
  );
  routes.post('/v1/nature/webhook_endpoints/:id/replay_failed', { schema: replayFailedDeliveriesSchema }, replayFailedDeliveries);
  routes.get('/v1/nature/webhook_endpoints', { schema: listWebhookEndpointsSchema }, (request) => listWebhookEndpoints(request, clock));
  routes.delete('/v1/nature/webhook_endpoints/:id', { schema: deleteWebhookEndpointSchema }, (request) =>
    deleteWebhookEndpoint(request, clock),
  );
  routes.get('/v1/nature/webhook_endpoints/:id/deliveries', { schema: listWebhookDeliveriesSchema }, listWebhookDeliveries);
}

/** The endpoint as the read models hold it, or 404. */
export async function requireEndpoint(readModels: ReadModelStore, id: string): Promise<WebhookEndpoint> {
  const doc = await readModels.get('webhook_endpoints', id);
  if (!doc) throw new ProblemError('not_found', `No webhook endpoint ${id}.`);
  return doc;
}

function toEndpointResource(endpoint: WebhookEndpoint, livemode: boolean, now: Date): z.infer<typeof endpointResource> {
  const { secret: _secret, previous_secrets: _previous, ...shown } = endpoint;
  return { ...shown, previous_secret_expires_at: previousSecretExpiresAt(endpoint, now), object: 'webhook_endpoint', livemode };
}

function refuseUrl(value: string, rules: EndpointRules): void {
  const problem = endpointUrlProblem(value, rules);
  // The guard's reasons are whole sentences (deliveries quote them too): the field's name goes before them.
  if (problem)
    throw new ProblemError('validation_failed', problem, { errors: [{ path: '/url', in: 'body', message: `\`url\`: ${problem}` }] });
}

async function createWebhookEndpoint(
  request: RouteRequest<typeof createWebhookEndpointSchema>,
  reply: RouteReply<typeof createWebhookEndpointSchema>,
  clock: Clock,
) {
  refuseUrl(request.body.url, request.env.endpointRules);
  const now = clock();
  const { endpoint, replayedAt } = await createEndpoint(request.env, request.body, eventMetadata(request), now);
  return reply.code(201).send({ ...toEndpointResource(endpoint, request.env.livemode, replayedAt ?? now), secret: endpoint.secret });
}

async function getWebhookEndpoint(request: RouteRequest<typeof getWebhookEndpointSchema>, clock: Clock) {
  return toEndpointResource(await requireEndpoint(request.env.readModels, request.params.id), request.env.livemode, clock());
}

async function updateWebhookEndpoint(request: RouteRequest<typeof updateWebhookEndpointSchema>, clock: Clock) {
  const changes = request.body ?? {};
  if (changes.url !== undefined) refuseUrl(changes.url, request.env.endpointRules);
  const now = clock();
  const { endpoint, replayedAt } = await updateEndpoint(request.env, request.params.id, changes, eventMetadata(request), now);
  return toEndpointResource(endpoint, request.env.livemode, replayedAt ?? now);
}

async function rotateWebhookEndpointSecret(request: RouteRequest<typeof rotateWebhookEndpointSecretSchema>, clock: Clock) {
  const now = clock();
  const overlap = request.body?.expire_previous_in ?? DEFAULT_OVERLAP_SECONDS;
  const { endpoint, replayedAt } = await rotateEndpointSecret(request.env, request.params.id, overlap, eventMetadata(request), now);
  return { ...toEndpointResource(endpoint, request.env.livemode, replayedAt ?? now), secret: endpoint.secret };
}

/** Sandbox only: a sample completion must never reach a live integration. */
async function sendTestWebhookEvent(
  request: RouteRequest<typeof sendTestWebhookEventSchema>,
  reply: RouteReply<typeof sendTestWebhookEventSchema>,
  clock: Clock,
) {
  if (request.env.livemode) throw new ProblemError('sandbox_only', 'Test events are sent in the sandbox only: use a test_ key.');
  const endpoint = await requireEndpoint(request.env.readModels, request.params.id);
  const event = testCompletion(clock());
  await queueTestEvent(request.env.bus, event, endpoint.id);
  return reply.code(202).send(eventObject(event, request.env.livemode));
}

/** Who asked: the request and its key. Not its Idempotency-Key's tag, which marks the events a keyed command decided. */
export function redeliveryMetadata(request: FastifyRequest): EventMetadata {
  return { request_id: request.id, key_id: request.apiKey.id };
}

/** Only to an enabled endpoint: a disabled one receives nothing, replayed or not. */
async function replayFailedDeliveries(
  request: RouteRequest<typeof replayFailedDeliveriesSchema>,
  reply: RouteReply<typeof replayFailedDeliveriesSchema>,
) {
  const endpoint = await requireEndpoint(request.env.readModels, request.params.id);
  if (endpoint.status !== 'enabled') {
    const error = fieldError('path', ['id'], `names the endpoint ${endpoint.id}, which is disabled: enable it first, then replay.`);
    throw new ProblemError('validation_failed', error.message, { errors: [error] });
  }
  const { since } = request.body;
  const replay = await replayFailed(request.env, endpoint.id, since, redeliveryMetadata(request));
  return reply.code(202).send({ object: 'replay' as const, endpoint_id: endpoint.id, since, ...replay });
}

async function listWebhookEndpoints(request: RouteRequest<typeof listWebhookEndpointsSchema>, clock: Clock) {
  const now = clock();
  return listPage(request.env.readModels, 'webhook_endpoints', request.query, {}, (doc) =>
    toEndpointResource(doc, request.env.livemode, now),
  );
}

async function deleteWebhookEndpoint(request: RouteRequest<typeof deleteWebhookEndpointSchema>, clock: Clock) {
  await deleteEndpoint(request.env, request.params.id, eventMetadata(request), clock());
  return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
}

async function listWebhookDeliveries(request: RouteRequest<typeof listWebhookDeliveriesSchema>) {
  await requireEndpoint(request.env.readModels, request.params.id);
  return listPage(request.env.readModels, 'webhook_deliveries', request.query, { endpoint_id: request.params.id }, (doc) => ({
    ...doc,
    object: 'webhook_delivery' as const,
    request: doc.request ?? null,
    livemode: request.env.livemode,
  }));
}
