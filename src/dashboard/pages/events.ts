import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { activity } from '../../domain/accounts.js';
import { can } from '../../domain/permissions.js';
import { eventTypes } from '../../domain/webhook-endpoint.js';
import { ProblemError } from '../../http/problem.js';
import { requireRedeliverable, requireRedeliveryTarget } from '../../http/routes/events.js';
import type { WebhookDelivery } from '../../ports/collections.js';
import { queueRedelivery } from '../../webhooks/dispatcher.js';
import { eventObject } from '../../webhooks/event-object.js';
import { actorOf, environmentOfSegment, noticeOf, queryValue, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext } from '../form-once.js';
import { formValues } from '../form-values.js';
import { type Html, html } from '../html.js';
import { badge, formTokens, page, toTheSecond, when } from '../layout.js';
import { environmentTabs, segmentParam } from './environment-tabs.js';
import { attemptExchange } from './webhooks.js';

const PAGE_SIZE = 25;
/** An event's attempts shown on its page, newest first: its retries on every endpoint, and redeliveries. */
const ATTEMPTS_SHOWN = 100;
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
  const attempts = (await env.readModels.list('webhook_deliveries', { limit: ATTEMPTS_SHOWN, where: { event_id: event.id } })).data;
  const body = html`${environmentTabs(segment, 'events')}${notice}
<p>${event.type} · ${when(event.created_at)}</p>
<pre tabindex="0" aria-label="The event as JSON"><code>${JSON.stringify(eventObject(event, env.livemode), null, 2)}</code></pre>
${
  can(viewer.role, 'events')
    ? html`<form method="post" action="/dashboard/${segment}/events/${event.id}/redeliver" class="actions">
${formTokens(viewer.csrf)}
<button type="submit" class="secondary">Redeliver to every endpoint that listens to ${event.type}</button>
</form>`
    : ''
}
<h2>Its attempts, on every endpoint</h2>
${attemptTable(segment, attempts)}
<p><a href="/dashboard/${segment}/events">All events</a></p>`;
  return sendPage(reply, page(`Event ${event.id}`, body, viewer, 'Events'));
}

function attemptTable(segment: string, attempts: WebhookDelivery[]): Html {
  if (attempts.length === 0) return html`<p>No attempt yet: no endpoint listening to it, or its delivery is still queued.</p>`;
  const rows = attempts.map(
    (attempt) => html`<tr><td><a href="/dashboard/${segment}/webhooks/${attempt.endpoint_id}"><code>${attempt.endpoint_id}</code></a></td>
<td>${attempt.attempt}</td><td>${badge(attempt.outcome)}</td><td>${attempt.status_code ?? attempt.error ?? '–'}</td>
<td>${attempt.duration_ms} ms</td><td class="wide">${toTheSecond(attempt.attempted_at)}</td><td>${attemptExchange(attempt)}</td></tr>`,
  );
  return html`<div class="scroll" tabindex="0"><table>
<caption class="visually-hidden">The event's delivery attempts, newest first</caption>
<thead><tr><th scope="col">Endpoint</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Answer</th><th scope="col">Took</th><th scope="col" class="wide">At</th><th scope="col">Sent</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** As POST /v1/nature/events/{id}/redeliver: the same checks, the same queue. */
async function redeliver(context: PageContext, request: EventRequest, reply: FastifyReply) {
  const segment = segmentParam(request);
  const env = envOf(context, request);
  const event = await env.readModels.get('events', request.params.id);
  if (event === undefined) throw new ProblemError('not_found', `No event ${request.params.id} in the ${segment}.`);
  await requireRedeliverable(env.readModels, event);
  const endpointId = formValues({ endpoint_id: z.string().regex(ENDPOINT_ID).optional() }, request.body).endpoint_id ?? '';
  if (endpointId !== '') await requireRedeliveryTarget(env.readModels, endpointId, event.type);
  return answerOnce(context.forms, request, reply, async () => {
    await queueRedelivery(env, event.id, endpointId === '' ? undefined : endpointId, {
      request_id: request.id,
      user_id: request.signedIn!.user.id,
    });
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
