import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type EventType, subscribes } from '../../domain/webhook-endpoint.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { queueRedelivery } from '../../webhooks/dispatcher.js';
import { eventObject } from '../../webhooks/event-object.js';
import { eventId, eventResource } from '../event-resource.js';
import { fieldError } from '../field-errors.js';
import { listOf, listPage, listQuery } from '../lists.js';
import { ProblemError } from '../problem.js';
import { exampleIds, id, problems, success } from '../schemas.js';
import { requireSubject } from './subjects.js';
import { requireEndpoint } from './webhook-endpoints.js';

const idParams = z.strictObject({ id: eventId });

/** Optional: fastify reads an absent body as null. */
const redeliverBody = z
  .strictObject({
    endpoint_id: id('whe', exampleIds.endpoint, 'Send the event to this endpoint only, even one registered after the event.').optional(),
  })
  .meta({ id: 'RedeliverEventRequest', examples: [{ endpoint_id: exampleIds.endpoint }] })
  .nullish();

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

export function registerEventRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/nature/events',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listEvents',
        summary: 'List events',
        description: 'Newest first: catch up on events your endpoint missed.',
        querystring: z.strictObject(listQuery),
        response: {
          200: success("A page of the environment's events, newest first.", listOf(eventResource)),
          ...problems('invalid_cursor'),
        },
      },
    },
    async (request) => listPage(request.env.readModels, 'events', request.query, {}, (doc) => eventObject(doc, request.env.livemode)),
  );

  routes.get(
    '/v1/nature/events/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getEvent',
        summary: 'Retrieve an event',
        description: 'The event object exactly as its webhook deliveries carry it.',
        params: idParams,
        response: { 200: success('The event.', eventResource), ...problems('not_found') },
      },
    },
    async (request) => {
      const doc = await request.env.readModels.get('events', request.params.id);
      if (!doc) throw new ProblemError('not_found', `No event ${request.params.id}.`);
      return eventObject(doc, request.env.livemode);
    },
  );

  routes.post(
    '/v1/nature/events/:id/redeliver',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'redeliverEvent',
        summary: 'Send an event again',
        description:
          "Queues the event again; 202 with the event. Deliveries keep its webhook-id. Without a body: for the environment's enabled endpoints that listen to its type and were registered before it. With `endpoint_id`: for that endpoint only (404 if there is none here, 422 if it is disabled or does not listen to the event's type).",
        params: idParams,
        body: redeliverBody,
        response: {
          202: success('The event, queued again for delivery.', eventResource),
          ...problems('not_found', 'subject_erased'),
        },
      },
    },
    async (request, reply) => {
      const doc = await request.env.readModels.get('events', request.params.id);
      if (!doc) throw new ProblemError('not_found', `No event ${request.params.id}.`);
      // An erased subject's events are not sent again.
      await requireSubject(request.env.readModels, doc.data.subject_id);
      const endpointId = request.body?.endpoint_id;
      if (endpointId !== undefined) await requireRedeliveryTarget(request.env.readModels, endpointId, doc.type);
      await queueRedelivery(request.env.bus, doc.id, endpointId);
      return reply.code(202).send(eventObject(doc, request.env.livemode));
    },
  );
}
