import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createEndpoint, deleteEndpoint, rotateEndpointSecret, updateEndpoint } from '../../commands/webhooks.js';
import { activity } from '../../domain/accounts.js';
import { type EndpointHealth, endpointHealth, HEALTH_WINDOW_MS } from '../../domain/endpoint-health.js';
import { can } from '../../domain/permissions.js';
import { type EventType, eventTypes, previousSecretExpiresAt, type WebhookEndpoint } from '../../domain/webhook-endpoint.js';
import { requireEndpoint } from '../../http/routes/webhook-endpoints.js';
import type { WebhookDelivery } from '../../ports/collections.js';
import { type EndpointRules, endpointUrlProblem } from '../../webhooks/address-guard.js';
import { queueTestEvent } from '../../webhooks/dispatcher.js';
import { attemptsSince } from '../../webhooks/endpoint-attempts.js';
import { replayFailed } from '../../webhooks/replay-failed.js';
import { testCompletion } from '../../webhooks/test-event.js';
import type { EnvironmentServices } from '../../wiring/environments.js';
import { actorOf, type EnvironmentSegment, environmentOfSegment, noticeOf, queryValue, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext, revealed } from '../form-once.js';
import { formValues, oneOf, someOf, text } from '../form-values.js';
import { type Html, html } from '../html.js';
import { badge, errorNotice, formTokens, page, shownOnce, toTheSecond, when } from '../layout.js';
import { environmentTabs, segmentParam } from './environment-tabs.js';

/** How long a rotated-out secret goes on signing, as the API offers it (0 to 7 days). */
const overlaps = [
  { seconds: 0, label: 'stop at once' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86400, label: '24 hours' },
  { seconds: 7 * 86400, label: '7 days' },
] as const;
const overlapValues = ['0', '3600', '86400', '604800'] as const satisfies readonly `${(typeof overlaps)[number]['seconds']}`[];
const DELIVERIES_SHOWN = 50;
/** The latest attempts health is read from: a day of a busy endpoint's, at most. */
const HEALTH_ATTEMPTS = 1000;
/** Endpoints per page of the list, paged with the API's cursor (`after`, the last id shown). */
const ENDPOINTS_PER_PAGE = 50;
const ENDPOINT_ID = /^whe_[0-9A-Z]{26}$/;

type Params = { segment: EnvironmentSegment; id: string };

/** As the API checks an endpoint's url: 1..2048 characters, then the address rules of the environment. */
const urlProblem = (url: string, rules: EndpointRules) =>
  url === ''
    ? 'Give the URL deliveries are sent to.'
    : [...url].length > 2048
      ? 'A URL has at most 2,048 characters.'
      : endpointUrlProblem(url, rules);

const eventChoices = (csrfChecked: readonly EventType[]) =>
  html`<fieldset><legend>Events to send</legend>${eventTypes.map(
    (type) =>
      html`<label><input type="checkbox" name="enabled_events" value="${type}"${csrfChecked.includes(type) ? html` checked` : ''}> ${type}</label>`,
  )}</fieldset>`;

function endpointList(segment: EnvironmentSegment, endpoints: WebhookEndpoint[]): Html {
  if (endpoints.length === 0) return html`<p>No endpoints in this environment yet: add one below.</p>`;
  return html`<div class="scroll" tabindex="0"><table>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col" class="wide">Created</th></tr></thead>
<tbody>${endpoints.map(
    (endpoint) =>
      html`<tr><td><a href="/dashboard/${segment}/webhooks/${endpoint.id}">${endpoint.url}</a></td><td>${endpoint.enabled_events.join(', ')}</td><td>${badge(endpoint.status)}</td><td class="wide">${when(endpoint.created_at)}</td></tr>`,
  )}</tbody></table></div>`;
}

function deliveryTable(
  segment: EnvironmentSegment,
  endpoint: WebhookEndpoint,
  deliveries: WebhookDelivery[],
  kept: ReadonlySet<string>,
  csrf: string,
  redeliverable: boolean,
): Html {
  if (deliveries.length === 0) return html`<p>No deliveries yet.</p>`;
  const redeliver = (delivery: WebhookDelivery) =>
    // A test event is sent once and never kept as an event, so it cannot be sent again; a disabled endpoint receives nothing.
    !redeliverable || !kept.has(delivery.event_id) || endpoint.status !== 'enabled'
      ? ''
      : html`<form method="post" action="/dashboard/${segment}/events/${delivery.event_id}/redeliver" class="inline">${formTokens(csrf)}<input type="hidden" name="endpoint_id" value="${endpoint.id}"><button type="submit" class="secondary">Redeliver<span class="visually-hidden"> ${delivery.event_id}</span></button></form>`;
  return html`<div class="scroll" tabindex="0"><table>
<caption class="visually-hidden">Delivery attempts, newest first</caption>
<thead><tr><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Status code or error</th><th scope="col">Duration</th><th scope="col" class="wide">Attempted</th><th scope="col" class="wide">Next attempt</th><th scope="col">Sent</th><th scope="col">Action</th></tr></thead>
<tbody>${deliveries.map(
    (delivery) => html`<tr>
<td><code>${delivery.event_id}</code></td><td>${delivery.attempt}</td><td>${badge(delivery.outcome)}</td>
<td>${delivery.status_code ?? delivery.error ?? '–'}</td><td>${delivery.duration_ms} ms</td>
<td class="wide">${toTheSecond(delivery.attempted_at)}</td><td class="wide">${toTheSecond(delivery.next_attempt_at)}</td><td>${attemptExchange(delivery)}</td><td>${redeliver(delivery)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** What an attempt sent (headers, then the body as signed) and the start of what was answered, folded away in its row. */
export function attemptExchange(attempt: WebhookDelivery): Html {
  const request = attempt.request ?? null;
  if (request === null) return html`–`;
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`);
  const answer = attempt.response_excerpt;
  return html`<details><summary>Request${answer === null ? '' : ' and answer'}<span class="visually-hidden"> of attempt ${attempt.attempt}, ${attempt.event_id}</span></summary>
<pre tabindex="0" aria-label="Request headers and body"><code>${headers.join('\n')}\n\n${request.body}</code></pre>
${answer === null ? '' : html`<pre tabindex="0" aria-label="The start of the answer"><code>${answer}</code></pre>`}</details>`;
}

/** The endpoint form's values; no event ticked means the default type, as the API's default. */
const endpointForm = (body: unknown): { url: string; enabled_events: EventType[] } => {
  const { url, enabled_events } = formValues({ url: text, enabled_events: someOf(eventTypes) }, body);
  return { url: url.trim(), enabled_events: enabled_events.length === 0 ? ['nature.assessment.completed'] : enabled_events };
};

export function registerWebhookPages(scope: FastifyInstance, context: PageContext): void {
  scope.get<{ Params: Partial<Params> }>('/:segment/webhooks', (request, reply) =>
    endpointsPage(context, request, reply, noticeOf(request)),
  );
  scope.post<{ Params: Partial<Params> }>('/:segment/webhooks', (request, reply) => addEndpoint(context, request, reply));
  scope.get<{ Params: Params }>('/:segment/webhooks/:id', (request, reply) => showEndpoint(context, request, reply));
  scope.post<{ Params: Params }>('/:segment/webhooks/:id', (request, reply) => editEndpoint(context, request, reply));
  scope.post<{ Params: Params }>('/:segment/webhooks/:id/status', (request, reply) => setStatus(context, request, reply));
  scope.post<{ Params: Params }>('/:segment/webhooks/:id/rotate', (request, reply) => rotateSecret(context, request, reply));
  scope.post<{ Params: Params }>('/:segment/webhooks/:id/test', (request, reply) => sendTestEvent(context, request, reply));
  scope.post<{ Params: Params }>('/:segment/webhooks/:id/delete', (request, reply) => removeEndpoint(context, request, reply));
  scope.post<{ Params: Params }>('/:segment/webhooks/:id/replay', (request, reply) => replay(context, request, reply));
}

const envOf = (context: PageContext, request: FastifyRequest<{ Params: Partial<Params> }>): EnvironmentServices =>
  context.envs[environmentOfSegment[segmentParam(request)]];
const metadata = (request: FastifyRequest) => ({ request_id: request.id, user_id: request.signedIn!.user.id });
const record = (context: PageContext, request: FastifyRequest, action: string, target: string, detail: string) =>
  context.accounts.appendActivity(activity(actorOf(request), action, target, detail, context.clock()));

const addForm = (csrf: string, segment: EnvironmentSegment, url: string) => html`<h2>Add an endpoint</h2>
<form method="post" action="/dashboard/${segment}/webhooks">
${formTokens(csrf)}
<label for="url">URL <span class="hint">(${segment === 'production' ? 'https and a public address' : 'http and this machine are allowed in the sandbox'})</span></label>
<input id="url" name="url" type="url" required maxlength="2048" value="${url}">
${eventChoices(['nature.assessment.completed'])}
<div class="actions"><button type="submit">Add endpoint</button></div>
</form>`;

/** The environment's endpoints, a page at a time, and the form that adds one. */
async function endpointsPage(
  context: PageContext,
  request: FastifyRequest<{ Params: Partial<Params> }>,
  reply: FastifyReply,
  notice: Html | string,
  url = '',
  status = 200,
) {
  const segment = segmentParam(request);
  const env = envOf(context, request);
  const viewer = await viewerOf(context, request, reply);
  const after = ENDPOINT_ID.test(queryValue(request, 'after')) ? queryValue(request, 'after') : undefined;
  const { data: endpoints, hasMore } = await env.readModels.list('webhook_endpoints', {
    limit: ENDPOINTS_PER_PAGE,
    ...(after !== undefined && { startingAfter: after }),
  });
  const body = html`${environmentTabs(segment, 'webhooks')}${notice}
${endpointList(segment, endpoints)}
<div class="actions">${after === undefined ? '' : html`<a href="/dashboard/${segment}/webhooks">First endpoints</a>`}${hasMore ? html`<a href="/dashboard/${segment}/webhooks?after=${endpoints.at(-1)!.id}">More endpoints</a>` : ''}</div>
${can(viewer.role, 'webhooks') ? addForm(viewer.csrf, segment, url) : ''}`;
  return sendPage(reply, page('Webhooks', body, viewer, 'Webhooks'), status);
}

/** The forms that change an endpoint (permissions.ts: webhooks): its status, a test event, its fields, its secret. */
function endpointForms(csrf: string, segment: EnvironmentSegment, endpoint: WebhookEndpoint): Html {
  const action = (path: string) => `/dashboard/${segment}/webhooks/${endpoint.id}/${path}`;
  return html`<div class="actions">
<form method="post" action="${action('status')}" class="inline">${formTokens(csrf)}<input type="hidden" name="status" value="${endpoint.status === 'enabled' ? 'disabled' : 'enabled'}"><button type="submit" class="secondary">${endpoint.status === 'enabled' ? 'Disable' : 'Enable'}</button></form>
${
  segment === 'sandbox'
    ? html`<form method="post" action="${action('test')}" class="inline">${formTokens(csrf)}<button type="submit" class="secondary">Send a test event</button></form>`
    : ''
}
</div>
<h2>Edit</h2>
<form method="post" action="/dashboard/${segment}/webhooks/${endpoint.id}">
${formTokens(csrf)}
<label for="url">URL</label>
<input id="url" name="url" type="url" required maxlength="2048" value="${endpoint.url}">
${eventChoices(endpoint.enabled_events)}
<div class="actions"><button type="submit">Save changes</button></div>
</form>
<h2>Rotate the signing secret</h2>
<form method="post" action="${action('rotate')}">
${formTokens(csrf)}
<label for="overlap">The current secret goes on signing beside the new one for</label>
<select id="overlap" name="overlap">${overlaps.map((overlap) => html`<option value="${overlap.seconds}"${overlap.seconds === 86400 ? html` selected` : ''}>${overlap.label}</option>`)}</select>
<div class="actions"><button type="submit" class="secondary">Rotate secret</button></div>
</form>`;
}

function replayForm(csrf: string, segment: EnvironmentSegment, endpoint: WebhookEndpoint): Html {
  return html`<form method="post" action="/dashboard/${segment}/webhooks/${endpoint.id}/replay" class="actions">
${formTokens(csrf)}
<label for="since">Replay every delivery that failed in the last</label>
<select id="since" name="since">${replayWindows.map((window) => html`<option value="${window.hours}">${window.label}</option>`)}</select>
<button type="submit" class="secondary">Replay failed deliveries</button>
</form>`;
}

function deleteForm(csrf: string, segment: EnvironmentSegment, endpoint: WebhookEndpoint): Html {
  return html`<h2>Delete the endpoint</h2>
<form method="post" action="/dashboard/${segment}/webhooks/${endpoint.id}/delete">
${formTokens(csrf)}
<p>It receives nothing more, deliveries still retrying stop, and its history stays in the activity log. This cannot be undone.</p>
<label><input type="checkbox" name="confirm" value="yes" required> Delete <code>${endpoint.url}</code></label>
<div class="actions"><button type="submit" class="danger">Delete endpoint</button></div>
</form>`;
}

/** One endpoint: its status and test-event buttons, its edit and rotation forms, and its latest deliveries. */
async function endpointPage(
  context: PageContext,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  notice: Html | string,
  status = 200,
) {
  const { segment, id } = request.params;
  const env = envOf(context, request);
  const viewer = await viewerOf(context, request, reply);
  const endpoint = await requireEndpoint(env.readModels, id);
  const deliveries = (await env.readModels.list('webhook_deliveries', { limit: DELIVERIES_SHOWN, where: { endpoint_id: id } })).data;
  const now = context.clock();
  const inWindow = await attemptsSince(env.readModels, id, new Date(now.getTime() - HEALTH_WINDOW_MS).toISOString(), HEALTH_ATTEMPTS);
  const health = endpointHealth(inWindow, now);
  const kept = new Set((await env.readModels.getMany('events', [...new Set(deliveries.map((delivery) => delivery.event_id))])).keys());
  const previous = previousSecretExpiresAt(endpoint, context.clock());
  const manage = can(viewer.role, 'webhooks');
  const body = html`${environmentTabs(segment, 'webhooks')}${notice}
<p><code>${endpoint.url}</code> ${badge(endpoint.status)}${endpoint.disabled_reason === null ? '' : html` · ${endpoint.disabled_reason}`}</p>
<p>Events: ${endpoint.enabled_events.join(', ')} · created ${when(endpoint.created_at)}${previous === null ? '' : html` · the previous secret also signs until ${when(previous)}`}</p>
${manage ? endpointForms(viewer.csrf, segment, endpoint) : ''}
<h2>Health, last 24 hours</h2>
${healthSummary(health)}
${can(viewer.role, 'events') ? replayForm(viewer.csrf, segment, endpoint) : ''}
<h2>Deliveries</h2>
${deliveryTable(segment, endpoint, deliveries, kept, viewer.csrf, can(viewer.role, 'events'))}
${manage ? deleteForm(viewer.csrf, segment, endpoint) : ''}`;
  return sendPage(reply, page(`Endpoint ${id}`, body, viewer, 'Webhooks'), status);
}

async function addEndpoint(context: PageContext, request: FastifyRequest<{ Params: Partial<Params> }>, reply: FastifyReply) {
  const env = envOf(context, request);
  const { url, enabled_events } = endpointForm(request.body);
  const problem = urlProblem(url, env.endpointRules);
  if (problem !== undefined) return endpointsPage(context, request, reply, errorNotice(problem), url, 422);
  return answerOnce(context.forms, request, reply, async () => {
    const { endpoint } = await createEndpoint(env, { url, enabled_events, description: null }, metadata(request), context.clock());
    await record(context, request, 'webhook_endpoint.created', endpoint.id, endpoint.url);
    const reveal = html`${shownOnce('signing-secret', `Endpoint ${endpoint.url} added. Its signing secret:`, endpoint.secret)}
<p>Verify each delivery with it (Standard Webhooks: the <code>webhook-signature</code> header).</p>`;
    return { location: `/dashboard/${segmentParam(request)}/webhooks/${endpoint.id}`, reveal };
  });
}

async function showEndpoint(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  return endpointPage(context, request, reply, html`${noticeOf(request)}${await revealed(context.forms, request)}`);
}

async function editEndpoint(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  const env = envOf(context, request);
  const { url, enabled_events } = endpointForm(request.body);
  const problem = urlProblem(url, env.endpointRules);
  if (problem !== undefined) return endpointPage(context, request, reply, errorNotice(problem), 422);
  return answerOnce(context.forms, request, reply, async () => {
    const { endpoint } = await updateEndpoint(env, request.params.id, { url, enabled_events }, metadata(request), context.clock());
    await record(context, request, 'webhook_endpoint.updated', endpoint.id, endpoint.url);
    return { location: `/dashboard/${request.params.segment}/webhooks/${endpoint.id}?done=saved` };
  });
}

function setStatus(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  const { status } = formValues({ status: oneOf(['enabled', 'disabled']) }, request.body);
  return answerOnce(context.forms, request, reply, async () => {
    const { endpoint } = await updateEndpoint(envOf(context, request), request.params.id, { status }, metadata(request), context.clock());
    await record(context, request, `webhook_endpoint.${status}`, endpoint.id, endpoint.url);
    return { location: `/dashboard/${request.params.segment}/webhooks/${endpoint.id}?done=${status}` };
  });
}

function rotateSecret(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  const overlap = Number(formValues({ overlap: oneOf(overlapValues) }, request.body).overlap);
  return answerOnce(context.forms, request, reply, async () => {
    const { endpoint } = await rotateEndpointSecret(
      envOf(context, request),
      request.params.id,
      overlap,
      metadata(request),
      context.clock(),
    );
    await record(context, request, 'webhook_endpoint.secret_rotated', endpoint.id, endpoint.url);
    return {
      location: `/dashboard/${request.params.segment}/webhooks/${endpoint.id}`,
      reveal: shownOnce('signing-secret', 'The new signing secret:', endpoint.secret),
    };
  });
}

function healthSummary(health: EndpointHealth): Html {
  if (health.attempts === 0) return html`<p>No attempts in the last 24 hours.</p>`;
  const rate = `${Math.round(health.successRate! * 1000) / 10} %`;
  const last =
    health.lastError === null
      ? 'no failed attempt'
      : html`last failure ${toTheSecond(health.lastError.at)}: ${health.lastError.statusCode === null ? (health.lastError.error ?? 'no answer') : `HTTP ${health.lastError.statusCode}`}`;
  return html`<p><strong>${rate}</strong> of ${health.attempts} attempts succeeded · median ${Math.round(health.medianMs!)} ms · ${last}</p>`;
}

const replayWindows = [
  { hours: '1', label: 'hour' },
  { hours: '24', label: '24 hours' },
  { hours: '168', label: '7 days' },
] as const;

/** As POST /v1/nature/webhook_endpoints/{id}/replay_failed: every event whose latest attempt failed in the window. */
function replay(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  const hours = Number(formValues({ since: oneOf(['1', '24', '168']) }, request.body).since);
  return answerOnce(context.forms, request, reply, async () => {
    const env = envOf(context, request);
    const endpoint = await requireEndpoint(env.readModels, request.params.id);
    const since = new Date(context.clock().getTime() - hours * 3_600_000).toISOString();
    const done = endpoint.status === 'enabled' ? await replayFailed(env, endpoint.id, since, metadata(request)) : undefined;
    if (done !== undefined) await record(context, request, 'webhook_endpoint.replayed', endpoint.id, `${done.queued} since ${since}`);
    const notice =
      done === undefined
        ? 'The endpoint is disabled: enable it first, then replay.'
        : `${done.queued} failed deliver${done.queued === 1 ? 'y' : 'ies'} queued again${done.remaining > 0 ? ` (${done.remaining} more: replay again)` : ''}.`;
    return {
      location: `/dashboard/${request.params.segment}/webhooks/${endpoint.id}`,
      reveal: html`<div class="notice" role="status"><p>${notice}</p></div>`,
    };
  });
}

/** Deletes the endpoint once its box is ticked, as DELETE /v1/nature/webhook_endpoints/{id} does. */
function removeEndpoint(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  formValues({ confirm: oneOf(['yes']) }, request.body);
  return answerOnce(context.forms, request, reply, async () => {
    const env = envOf(context, request);
    const endpoint = await requireEndpoint(env.readModels, request.params.id);
    await deleteEndpoint(env, endpoint.id, metadata(request), context.clock());
    await record(context, request, 'webhook_endpoint.deleted', endpoint.id, endpoint.url);
    return { location: `/dashboard/${request.params.segment}/webhooks?done=deleted` };
  });
}

/** Sandbox only, as in the API: a sample completion must never reach a live integration. */
async function sendTestEvent(context: PageContext, request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
  const env = envOf(context, request);
  formValues({}, request.body);
  if (env.livemode) return endpointPage(context, request, reply, errorNotice('Test events are sent in the sandbox only.'), 403);
  return answerOnce(context.forms, request, reply, async () => {
    const endpoint = await requireEndpoint(env.readModels, request.params.id);
    const event = testCompletion(context.clock());
    await queueTestEvent(env.bus, event, endpoint.id);
    await record(context, request, 'webhook_endpoint.test_sent', endpoint.id, event.id);
    return { location: `/dashboard/${request.params.segment}/webhooks/${endpoint.id}?done=test_sent` };
  });
}
