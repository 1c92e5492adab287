import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiKeyRecord, keyHint } from '../../domain/api-keys.js';
import { ProblemError } from '../../http/problem.js';
import type { RequestFilter, RequestRecord } from '../../ports/request-log.js';
import { parseUtcInstant } from '../../support/utc-instants.js';
import { type DashboardContext, type EnvironmentSegment, environmentOfSegment, queryValue, sendPage, viewerOf } from '../context.js';
import { type Html, html } from '../html.js';
import { page } from '../layout.js';
import { environmentTabs, segmentParam } from './environment-tabs.js';

const PAGE_SIZE = 50;
const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
const KEY_ID = /^key_[0-9A-HJKMNP-TV-Z]{26}$/;
const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
const PATH_MAX = 512;

/** The filters a page's address asks for: a value that names nothing is left out, and its field shown empty. */
interface Filters {
  status: string;
  path: string;
  key: string;
  since: string;
  until: string;
}

export function registerRequestPages(scope: FastifyInstance, context: DashboardContext): void {
  scope.get('/:segment/requests', (request, reply) => requestsPage(context, request, reply));
  scope.get<{ Params: { segment: string; id: string } }>('/:segment/requests/:id', (request, reply) =>
    requestPage(context, request, reply),
  );
}

const storeOf = (context: DashboardContext, segment: EnvironmentSegment) => context.envs[environmentOfSegment[segment]].requests;

function filtersOf(request: FastifyRequest, now: Date): { shown: Filters; filter: RequestFilter } {
  const [status, path, key, since, until] = ['status', 'path', 'key', 'since', 'until'].map((name) => queryValue(request, name).trim()) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const shown: Filters = { status: '', path: '', key: '', since: '', until: '' };
  const filter: RequestFilter = {};
  if ((STATUS_CLASSES as readonly string[]).includes(status)) {
    shown.status = status;
    filter.statusClass = Number(status[0]);
  }
  if (path.startsWith('/') && path.length <= PATH_MAX) filter.path = shown.path = path;
  if (KEY_ID.test(key)) filter.keyId = shown.key = key;
  const from = parseUtcInstant(since, now);
  if (from !== undefined) [filter.since, shown.since] = [from, since];
  const to = parseUtcInstant(until, now);
  if (to !== undefined) [filter.until, shown.until] = [to, until];
  return { shown, filter };
}

/** "2026-11-29 14:03:07.412 UTC": requests come many a second. */
const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 23).replace('T', ' ')} UTC`;

/** The status as text, coloured by its class (the colour repeats what the text says). */
const statusBadge = (status: number) =>
  html`<span class="badge ${status >= 500 ? 'failed' : status >= 400 ? 'pending' : 'succeeded'}">${status}</span>`;

const keyLabel = (record: RequestRecord, keys: Map<string, ApiKeyRecord>) => {
  const key = record.key_id === null ? undefined : keys.get(record.key_id);
  return key === undefined ? (record.key_hint ?? '–') : `${key.name} (${record.key_hint})`;
};

function filterForm(segment: EnvironmentSegment, shown: Filters, keys: ApiKeyRecord[]): Html {
  const option = (value: string, label: string, chosen: string) =>
    html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/dashboard/${segment}/requests" class="filters">
<div><label for="status">Status</label>
<select id="status" name="status">${option('', 'Any status', shown.status)}${STATUS_CLASSES.map((each) => option(each, each, shown.status))}</select></div>
<div><label for="path">Path or route</label>
<input type="text" id="path" name="path" value="${shown.path}" placeholder="/v1/nature/subjects" aria-describedby="path-hint">
<p class="hint" id="path-hint">The start of a path, or a route such as <code>/v1/nature/subjects/:id</code>.</p></div>
<div><label for="key">Key</label>
<select id="key" name="key">${option('', 'Any key', shown.key)}${keys.map((key) => option(key.id, `${key.name} (${keyHint(key, key.last4)})`, shown.key))}</select></div>
<div><label for="since">Since (UTC)</label>
<input type="text" id="since" name="since" value="${shown.since}" placeholder="15m" aria-describedby="time-hint"></div>
<div><label for="until">Until (UTC)</label>
<input type="text" id="until" name="until" value="${shown.until}" placeholder="2026-11-29 11:00" aria-describedby="time-hint">
<p class="hint" id="time-hint">A UTC date and time, or a time back from now (<code>15m</code>, <code>2h</code>, <code>7d</code>).</p></div>
<div class="actions"><button type="submit" class="secondary">Filter</button><a href="/dashboard/${segment}/requests">Clear</a></div>
</form>`;
}

/** The environment's requests, newest first, a page at a time, filtered. */
async function requestsPage(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const segment = segmentParam(request);
  const store = storeOf(context, segment);
  const { shown, filter } = filtersOf(request, context.clock());
  const before = REQUEST_ID.test(queryValue(request, 'before')) ? queryValue(request, 'before') : undefined;
  const viewer = await viewerOf(context, request, reply);
  const environment = environmentOfSegment[segment];
  const keys = (await context.keys.list()).filter((key) => key.environment === environment);
  const { data, hasMore } = await store.list(filter, { limit: PAGE_SIZE, ...(before !== undefined && { before }) });
  const query = (more: Record<string, string>) =>
    new URLSearchParams({ ...Object.fromEntries(Object.entries(shown).filter(([, value]) => value !== '')), ...more }).toString();
  const byId = new Map(keys.map((key) => [key.id, key]));
  const rows = data.map(
    (each) => html`<tr><td class="wide">${at(each.at)}</td><td>${each.method}</td>
<td><a href="/dashboard/${segment}/requests/${each.id}"><code>${each.path}</code></a></td><td>${statusBadge(each.status)}</td>
<td>${each.duration_ms} ms</td><td class="wide">${keyLabel(each, byId)}</td></tr>`,
  );
  const body = html`${environmentTabs(segment, 'requests')}
${filterForm(segment, shown, keys)}
${
  data.length === 0
    ? html`<p>No requests${Object.keys(filter).length === 0 ? '' : ' match these filters'} here yet.</p>`
    : html`<div class="scroll" tabindex="0"><table><caption class="visually-hidden">API requests, newest first</caption>
<thead><tr><th scope="col" class="wide">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Took</th><th scope="col" class="wide">Key</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
<div class="actions">${before === undefined ? '' : html`<a href="/dashboard/${segment}/requests?${query({})}">Newest</a>`}${hasMore ? html`<a href="/dashboard/${segment}/requests?${query({ before: data.at(-1)!.id })}">Older requests</a>` : ''}</div>
<p class="hint">Every API request this environment answered, kept for its retention (30 days unless the operator set another). Values that may be personal are shown by their field's name only.</p>`;
  return sendPage(reply, page('Requests', body, viewer, 'Requests'));
}

/** One request: every field kept of it. */
async function requestPage(
  context: DashboardContext,
  request: FastifyRequest<{ Params: { segment: string; id: string } }>,
  reply: FastifyReply,
) {
  const segment = segmentParam(request);
  const found = REQUEST_ID.test(request.params.id) ? await storeOf(context, segment).get(request.params.id) : undefined;
  if (found === undefined) throw new ProblemError('not_found', `No request ${request.params.id} in the ${segment}'s request log.`);
  const viewer = await viewerOf(context, request, reply);
  // The one key it names (a link's id names none of the store's).
  const key = found.key_id === null ? undefined : await context.keys.get(found.key_id);
  const keys = new Map(key === undefined ? [] : [[key.id, key]]);
  const problem = found.problem === null ? null : prettyJson(found.problem);
  const row = (label: string, value: Html | string) => html`<dt>${label}</dt><dd>${value}</dd>`;
  const body = html`${environmentTabs(segment, 'requests')}
<dl class="fields">
${row('Time', at(found.at))}${row('Method', found.method)}${row('Path', html`<code>${found.path}</code>`)}
${row('Route', found.route === null ? 'none: no route answers this path' : html`<code>${found.route}</code>`)}
${row('Status', statusBadge(found.status))}${row('Took', `${found.duration_ms} ms`)}
${row('Key', found.key_id === null ? `${found.key_hint ?? '–'} (not a key of this environment, or no longer one)` : html`${keyLabel(found, keys)} <code>${found.key_id}</code>`)}
${row('Request id', html`<code>${found.id}</code>`)}${row('Idempotency-Key', found.idempotency_key === null ? '–' : html`<code>${found.idempotency_key}</code>`)}
</dl>
<h2>Request body</h2>
${found.request_body === null ? html`<p>None, or none that could be read.</p>` : html`<pre tabindex="0" aria-label="The request body, its personal values shown by their field's name"><code>${found.request_body}</code></pre>`}
${problem === null ? '' : html`<h2>Problem sent</h2><pre tabindex="0" aria-label="The problem body as sent"><code>${problem}</code></pre>`}
<p><a href="/dashboard/${segment}/requests">All requests</a></p>`;
  return sendPage(reply, page(`Request ${found.id}`, body, viewer, 'Requests'));
}

/** The problem indented for reading; text that is not JSON (cut short) as it is. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
