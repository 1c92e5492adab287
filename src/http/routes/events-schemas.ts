import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { eventId, eventResource } from '../event-resource.js';
import { listOf, listQuery } from '../lists.js';
import { exampleIds, id, problems, success } from '../schemas.js';

// The event routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

const idParams = z.strictObject({ id: eventId });

/** Optional: fastify reads an absent body as null. */
const redeliverBody = z
  .strictObject({
    endpoint_id: id('whe', exampleIds.endpoint, 'Send the event to this endpoint only, even one registered after the event.').optional(),
  })
  .meta({ id: 'RedeliverEventRequest', examples: [{ endpoint_id: exampleIds.endpoint }] })
  .nullish();

export const listEventsSchema = {
  tags: ['webhooks'],
  operationId: 'listEvents',
  summary: 'List events',
  description: 'Newest first: catch up on events your endpoint missed.',
  querystring: z.strictObject(listQuery),
  response: {
    200: success("A page of the environment's events, newest first.", listOf(eventResource)),
    ...problems('invalid_cursor'),
  },
} satisfies FastifySchema;

export const getEventSchema = {
  tags: ['webhooks'],
  operationId: 'getEvent',
  summary: 'Retrieve an event',
  description: 'The event object exactly as its webhook deliveries carry it.',
  params: idParams,
  response: { 200: success('The event.', eventResource), ...problems('not_found') },
} satisfies FastifySchema;

export const redeliverEventSchema = {
  tags: ['webhooks'],
  operationId: 'redeliverEvent',
  summary: 'Send an event again',
  description:
    "Queues the event again; 202 with the event. Deliveries keep its webhook-id. Without a body: for the environment's enabled endpoints that listen to its type and were registered before it. With `endpoint_id`: for that endpoint only (404 if there is none here, 422 if it is disabled or does not listen to the event's type). A retry of the event still scheduled for an endpoint it goes to is superseded: it is not made, so the endpoint gets the event once more, not twice; if this delivery fails, it is retried on the whole schedule.",
  params: idParams,
  body: redeliverBody,
  response: {
    202: success('The event, queued again for delivery.', eventResource),
    ...problems('not_found', 'subject_erased'),
  },
} satisfies FastifySchema;
