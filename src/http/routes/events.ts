import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type EventType, subscribes } from '../../domain/webhook-endpoint.js';
import { tellsOfErasure, type WebhookEvent } from '../../ports/collections.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { queueRedelivery } from '../../webhooks/dispatcher.js';
import { eventObject } from '../../webhooks/event-object.js';
import { fieldError } from '../field-errors.js';
import { listPage } from '../lists.js';
import { ProblemError } from '../problem.js';
import type { RouteReply, RouteRequest } from '../route-handler.js';
import { getEventSchema, listEventsSchema, redeliverEventSchema } from './events-schemas.js';
import { requireSubject } from './subjects.js';
import { redeliveryMetadata, requireEndpoint } from './webhook-endpoints.js';

export function registerEventRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get('/v1/nature/events', { schema: listEventsSchema }, listEvents);
  routes.get('/v1/nature/events/:id', { schema: getEventSchema }, getEvent);
  routes.post('/v1/nature/events/:id/redeliver', { schema: redeliverEventSchema }, redeliverEvent);
}

/** An erased subject's events are not sent again (410), but for those telling of the erasure. */
export async function requireRedeliverable(readModels: ReadModelStore, event: WebhookEvent): Promise<void> {
  if (!tellsOfErasure(event)) await requireSubject(readModels, event.data.subject_id);
}

/** The one endpoint a redelivery names: it must exist here, be enabled and listen to the event's type. */
export async function requireRedeliveryTarget(readModels: ReadModelStore, endpointId: string, type: EventType): Promise<void> {
  const endpoint = await requireEndpoint(readModels, endpointId);
  const reason =
    endpoint.status !== 'enabled'
      ? `names the endpoint ${endpointId}, which is disabled: it receives nothing.`
      : !subscribes(endpoint, type)
        ? `names the endpoint ${endpointId}, which does not listen to ${type} (see its enabled_events).`
        : undefined;
  if (reason) {
    const error = fieldError('body', ['endpoint_id'], reason);
    throw new ProblemError('validation_failed', error.message, { errors: [error] });
  }
}

async function listEvents(request: RouteRequest<typeof listEventsSchema>) {
  return listPage(request.env.readModels, 'events', request.query, {}, (doc) => eventObject(doc, request.env.livemode));
}

async function getEvent(request: RouteRequest<typeof getEventSchema>) {
  const doc = await request.env.readModels.get('events', request.params.id);
  if (!doc) throw new ProblemError('not_found', `No event ${request.params.id}.`);
  return eventObject(doc, request.env.livemode);
}

async function redeliverEvent(request: RouteRequest<typeof redeliverEventSchema>, reply: RouteReply<typeof redeliverEventSchema>) {
  const doc = await request.env.readModels.get('events', request.params.id);
  if (!doc) throw new ProblemError('not_found', `No event ${request.params.id}.`);
  await requireRedeliverable(request.env.readModels, doc);
  const endpointId = request.body?.endpoint_id;
  if (endpointId !== undefined) await requireRedeliveryTarget(request.env.readModels, endpointId, doc.type);
  await queueRedelivery(request.env, doc.id, endpointId, redeliveryMetadata(request));
  return reply.code(202).send(eventObject(doc, request.env.livemode));
}
