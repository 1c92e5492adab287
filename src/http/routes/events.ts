import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { newId } from '../../domain/ids.js';
import { eventTypes } from '../../domain/webhook-endpoint.js';
import { type EventData, eventObject } from '../../webhooks/event-object.js';
import { listOf, listPage, listQuery } from '../lists.js';
import { ProblemError } from '../problem.js';
import { problems, timestamp } from '../schemas.js';
import { requireSubject } from './subjects.js';

const eventResource = z
  .object({
    id: z.string().describe('evt_…: also the webhook-id header of every delivery of this event'),
    object: z.literal('event'),
    type: z.enum(eventTypes),
    created_at: timestamp,
    livemode: z.boolean(),
    data: z.object({
      profile_id: z.string(),
      assessment_id: z.string(),
      subject_id: z.string(),
      previous_profile_id: z.string().optional().describe('nature.profile.updated: the profile it replaces.'),
      scoring_version: z.string().optional().describe('nature.profile.updated: the scoring version of the new profile.'),
    }),
  })
  .meta({ id: 'Event' });

const idParams = z.strictObject({ id: z.string().describe('evt_…') });

export function registerEventRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/nature/events',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'List events',
        description: 'Newest first: catch up on events your endpoint missed.',
        querystring: z.strictObject(listQuery),
        response: { 200: listOf(eventResource), ...problems(400, 422) },
      },
    },
    async (request) => listPage(request.env.readModels, 'events', request.query, {}, (doc) => eventObject(doc, request.env.livemode)),
  );

  routes.get(
    '/v1/nature/events/:id',
    { schema: { tags: ['webhooks'], summary: 'Retrieve an event', params: idParams, response: { 200: eventResource, ...problems(404) } } },
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
        summary: 'Send an event again',
        description: "Queues the event again for the environment's enabled endpoints; 202 with the event. Deliveries keep its webhook-id.",
        params: idParams,
        response: { 202: eventResource, ...problems(404, 410) },
      },
    },
    async (request, reply) => {
      const doc = await request.env.readModels.get('events', request.params.id);
      if (!doc) throw new ProblemError('not_found', `No event ${request.params.id}.`);
      // An erased subject's events are not sent again.
      await requireSubject(request.env.readModels, (doc.data as EventData).subject_id);
      // A fresh message id: the bus must not drop it as a repeat of the first publish.
      await request.env.bus.publish('events', `${doc.id}:redeliver:${newId('req')}`, { event_id: doc.id });
      return reply.code(202).send(eventObject(doc, request.env.livemode));
    },
  );
}
