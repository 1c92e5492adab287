import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { activity } from '../../domain/accounts.js';
import { eventTypes } from '../../domain/webhook-endpoint.js';
import { ProblemError } from '../../http/problem.js';
import { requireRedeliveryTarget } from '../../http/routes/events.js';
import { requireSubject } from '../../http/routes/subjects.js';
import { queueRedelivery } from '../../webhooks/dispatcher.js';
import { eventObject } from '../../webhooks/event-object.js';
import { actorOf, environmentOfSegment, noticeOf, queryValue, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext } from '../form-once.js';
import { formValues } from '../form-values.js';
import { html } from '../html.js';
import { formTokens, page, when } from '../layout.js';
import { environmentTabs, segmentParam } from './environment-tabs.js';

const PAGE_SIZE = 25;
const EVENT_ID = /^evt_[0-9A-Z]{26}$/;
const ENDPOINT_ID = /^whe_[0-9A-Z]{26}$/;

type EventRequest = FastifyRequest<{ Params: { segment: string; id: string } }>;

export function registerEventPages(scope: FastifyInstance, context: PageContext): void {
  scope.get('/:segment/events', (request, reply) => eventsPage(context, request, reply));
  scope.get<{ Params: { segment: string; id: string } }>('/:segment/events/:id', (request, reply) => eventPage(context, request, reply));
  scope.post<{ Params: { segment: string; id: string } }>('/:segment/events/:id/redeliver', (request, reply) =>
    redeliver(context, request, reply),
  );
}

const envOf = (context: PageContext, request: FastifyRequest) => context.envs[environmentOfSegment[segmentParam(request)]];

/** The environment's events, newest first, a page at a time, filtered by type. */
async function eventsPage(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const segment = segmentParam(request);
  const type = (eventTypes as readonly string[]).includes(queryValue(request, 'type')) ? queryValue(request, 'type') : '';
  const after = EVENT_ID.test(queryValue(request, 'after')) ? queryValue(request, 'after') : undefined;
  const viewer = await viewerOf(context, request, reply);
  const { data, hasMore } = await envOf(context, request).readModels.list('events', {
    limit: PAGE_SIZE,
    ...(type !== '' && { where: { type } }),
    ...(after !== undefined && { startingAfter: after }),
  });
  const query = (more: Record<string, string>) => new URLSearchParams({ ...(type !== '' && { type }), ...more }).toString();
  const rows = data.map(
    (event) =>
      html`<tr><td><a href="/dashboard/${segment}/events/${event.id}"><code>${event.id}</code></a></td><td>${event.type}</td><td>${when(event.created_at)}</td></tr>`,
  );
  const body = html`${environmentTabs(segment, 'events')}
<form method="get" action="/dashboard/${segment}/events" class="actions">
<label for="type">Type</label>
<select id="type" name="type"><option value="">All types</option>${eventTypes.map((each) => html`<option value="${each}"${each === type ? html` selected` : ''}>${each}</option>`)}</select>
<button type="submit" class="secondary">Filter</button>
</form>
${
  data.length === 0
    ? html`<p>No events${type === '' ? '' : html` of type ${type}`} here yet.</p>`
    : html`<div class="scroll" tabindex="0"><table><caption class="visually-hidden">Events, newest first</caption><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<div class="actions">${after === undefined ? '' : html`<a href="/dashboard/${segment}/events?${query({})}">Newest</a>`}${hasMore ? html`<a href="/dashboard/${segment}/events?${query({ after: data.at(-1)!.id })}">Older events</a>` : ''}</div>`;
  return sendPage(reply, page('Events', body, viewer, 'Events'));
}

/** One event as its deliveries carry it, and the button that sends it again. */
async function eventPage(context: PageContext, request: EventRequest, reply: FastifyReply) {
  const segment = segmentParam(request);
  const env = envOf(context, request);
  const event = await env.readModels.get('events', request.params.id);
  if (event === undefined) throw new ProblemError('not_found', `No event ${request.params.id} in the ${segment}.`);
  const viewer = await viewerOf(context, request, reply);
  const notice = noticeOf(request);
  const body = html`${environmentTabs(segment, 'events')}${notice}
<p>${event.type} · ${when(event.created_at)}</p>
<pre tabindex="0" aria-label="The event as JSON"><code>${JSON.stringify(eventObject(event, env.livemode), null, 2)}</code></pre>
<form method="post" action="/dashboard/${segment}/events/${event.id}/redeliver" class="actions">
${formTokens(viewer.csrf)}
<button type="submit" class="secondary">Redeliver to every endpoint that listens to ${event.type}</button>
</form>
<p><a href="/dashboard/${segment}/events">All events</a></p>`;
  return sendPage(reply, page(`Event ${event.id}`, body, viewer, 'Events'));
}

/** As POST /v1/nature/events/{id}/redeliver: the same checks, the same queue. */
async function redeliver(context: PageContext, request: EventRequest, reply: FastifyReply) {
  const segment = segmentParam(request);
  const env = envOf(context, request);
  const event = await env.readModels.get('events', request.params.id);
  if (event === undefined) throw new ProblemError('not_found', `No event ${request.params.id} in the ${segment}.`);
  await requireSubject(env.readModels, event.data.subject_id);
  const endpointId = formValues({ endpoint_id: z.string().regex(ENDPOINT_ID).optional() }, request.body).endpoint_id ?? '';
  if (endpointId !== '') await requireRedeliveryTarget(env.readModels, endpointId, event.type);
  return answerOnce(context.forms, request, reply, async () => {
    await queueRedelivery(env.bus, event.id, endpointId === '' ? undefined : endpointId);
    await context.accounts.appendActivity(
      activity(
        actorOf(request),
        'event.redelivered',
        event.id,
        endpointId === '' ? 'every listening endpoint' : endpointId,
        context.clock(),
      ),
    );
    return {
      location:
        endpointId === ''
          ? `/dashboard/${segment}/events/${event.id}?done=redelivered`
          : `/dashboard/${segment}/webhooks/${endpointId}?done=redelivered`,
    };
  });
}
