import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CareersIndex } from '../../careers/careers-index.js';
import { hasProductionAccess } from '../../commands/accounts.js';
import { KeyRuleError, mintApiKey, revokeApiKey, rotateApiKey } from '../../commands/api-keys.js';
import {
  type ApiKeyRecord,
  type Environment,
  type KeyType,
  keyHint,
  mintProblem,
  parseOrigin,
  type RollExpiry,
  rollExpiryNames,
  rollingAt,
  type Scope,
  scopes,
} from '../../domain/api-keys.js';
import { can } from '../../domain/permissions.js';
import { actorOf, noticeOf, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext, revealed } from '../form-once.js';
import { formValues, oneOf, someOf, text } from '../form-values.js';
import { type Html, html } from '../html.js';
import { badge, errorNotice, formTokens, page, shownOnce, when } from '../layout.js';

const environmentName = { test: 'Sandbox', live: 'Production' } as const;
/** A rolled key in its grace period is "expiring": it works until its revoked_at. */
const statusOf = (key: ApiKeyRecord, now: Date) =>
  key.revoked_at === null ? 'active' : rollingAt(key, now) ? 'expiring' : (key.revoked_reason ?? 'revoked');

/** A key's last use is kept to the hour: `2026-11-29 14:00 UTC` (the hour it falls in). */
const hourOf = (hour: string) => `${hour.slice(0, 10)} ${hour.slice(11, 16)} UTC`;

const rollChoices: Record<RollExpiry, string> = {
  now: 'stops working now',
  '1h': 'keeps working for 1 hour',
  '24h': 'keeps working for 24 hours',
  '3d': 'keeps working for 3 days',
  '7d': 'keeps working for 7 days',
};
const shortKey = (key: ApiKeyRecord) => keyHint(key, key.last4);

interface KeyForm {
  name: string;
  environment: Environment;
  type: KeyType;
  scopes: Scope[];
  origins: string;
}

/** A scope the rules of keys (mintProblem) refuse on a pk key: marked "sk only" on the form. */
const secretOnly = (scope: Scope) => mintProblem({ name: 'pk', environment: 'test', type: 'pk', scopes: [scope] }) !== undefined;

const blankForm: KeyForm = { name: '', environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'], origins: '' };

/** What can be done with a key: rotate or revoke it, for a role that may (permissions.ts: keys); else when it stops or stopped. */
function keyActions(key: ApiKeyRecord, now: Date, manage: boolean): Html | string {
  if (key.revoked_at !== null && !rollingAt(key, now)) return when(key.revoked_at);
  const name = html`<span class="visually-hidden"> ${key.name}</span>`;
  if (key.revoked_at === null)
    return manage
      ? html`<a href="/dashboard/keys/${key.id}/rotate">Rotate${name}</a> · <a href="/dashboard/keys/${key.id}/revoke">Revoke${name}</a>`
      : '–';
  const until = `works until ${when(key.revoked_at)}`;
  return manage ? html`${until} · <a href="/dashboard/keys/${key.id}/revoke">Revoke now${name}</a>` : until;
}

function keyTable(keys: ApiKeyRecord[], now: Date, manage: boolean): Html {
  if (keys.length === 0) return html`<p>No keys yet${manage ? ': create one below' : ''}.</p>`;
  const rows = [...keys].reverse().map(
    (key) => html`<tr>
<td>${key.name}</td>
<td><code class="key">${shortKey(key)}</code></td>
<td>${environmentName[key.environment]}</td>
<td>${key.type === 'sk' ? 'secret' : 'publishable'}</td>
<td>${key.scopes.join(', ')}</td>
<td class="wide">${key.type === 'sk' ? '–' : key.origins.length === 0 ? 'any' : key.origins.join(', ')}</td>
<td class="wide">${when(key.created_at)}</td>
<td>${key.last_used_at === null ? 'never' : hourOf(key.last_used_at)}</td>
<td>${badge(statusOf(key, now))}</td>
<td>${keyActions(key, now, manage)}</td>
</tr>`,
  );
  return html`<div class="scroll" tabindex="0"><table>
<caption class="visually-hidden">API keys, newest first</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Type</th><th scope="col">Scopes</th><th scope="col" class="wide">Allowed origins</th><th scope="col" class="wide">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

function createForm(csrf: string, form: KeyForm, approved: boolean): Html {
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<form method="post" action="/dashboard/keys">
${formTokens(csrf)}
<label for="name">Name <span class="hint">(what the key is for, such as "Staging server")</span></label>
<input id="name" name="name" type="text" maxlength="100" required value="${form.name}">
<fieldset><legend>Environment</legend>
<label><input type="radio" name="environment" value="test"${checked(form.environment === 'test')}> Sandbox (test_)</label>
<label><input type="radio" name="environment" value="live"${checked(form.environment === 'live')}${approved ? '' : html` disabled aria-describedby="live-hint"`}> Production (live_)</label>
${approved ? '' : html`<p id="live-hint" class="hint">Production keys need approved production access: <a href="/dashboard/production">apply here</a>.</p>`}
</fieldset>
<fieldset><legend>Type</legend>
<label><input type="radio" name="type" value="sk"${checked(form.type === 'sk')}> Secret (sk): for your server</label>
<label><input type="radio" name="type" value="pk"${checked(form.type === 'pk')}> Publishable (pk): for browsers, with an assessment's client secret</label>
</fieldset>
<fieldset aria-describedby="scopes-hint"><legend>Scopes</legend>
${scopes.map((scope) => html`<label><input type="checkbox" name="scopes" value="${scope}"${checked(form.scopes.includes(scope))}> ${scope}${secretOnly(scope) ? html` <span class="hint">(sk only)</span>` : ''}</label>`)}
<p id="scopes-hint" class="hint">Scopes marked sk only are refused on publishable (pk) keys: a publishable key reads only, and writes with an assessment's client secret; careers and situational assessments are reached from your server, with a secret key.</p>
</fieldset>
<label for="origins">Allowed origins <span class="hint">(publishable keys only: one per line, such as https://app.example.com; none allows any)</span></label>
<textarea id="origins" name="origins" rows="3">${form.origins}</textarea>
<div class="actions"><button type="submit">Create key</button></div>
</form>`;
}

/** The form as sent: only values it offers (else 422), then the rules of keys (mintProblem) say what is wrong with it. */
function readForm(body: unknown): { form: KeyForm; origins: string[]; problem?: string } {
  const form: KeyForm = formValues(
    { name: text, environment: oneOf(['test', 'live']), type: oneOf(['sk', 'pk']), scopes: someOf(scopes), origins: text },
    body,
  );
  const originLines = form.origins
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const origins = originLines.map(parseOrigin);
  const bad = originLines.find((_, index) => origins[index] === undefined);
  if (bad !== undefined)
    return {
      form,
      origins: [],
      problem: `"${bad}" is not an origin: write scheme://host[:port], such as https://app.example.com, with no path.`,
    };
  return { form, origins: origins as string[] };
}

/** Which careers catalogue careers:read keys reach, and the attribution O*NET's licence asks for wherever its data is offered. */
function careersSection(catalogue: CareersIndex | undefined): Html {
  const version = catalogue?.version;
  const installed =
    version === undefined
      ? html`<p>No careers catalogue imported: until the server's operator runs <code>nature careers import PATH</code>, the careers routes answer 503 careers_catalogue_missing.</p>`
      : html`<p>Catalogue <code>${version}</code>, for keys with careers:read (<a href="/docs/careers">Careers guide</a>).</p>`;
  return html`<h2 id="careers">Careers catalogue</h2>
${installed}
<p class="hint">This service includes information from the ${catalogue === undefined ? 'O*NET Database' : html`O*NET ${catalogue.release} Database`} by USDOL/ETA, used under <a href="https://www.onetcenter.org/license_db.html">CC BY 4.0</a>.</p>`;
}

type KeyAction = 'rotate' | 'revoke';
type KeyRequest = FastifyRequest<{ Params: { id: string } }>;

export function registerKeyPages(scope: FastifyInstance, context: PageContext): void {
  scope.get('/keys', (request, reply) => showKeys(context, request, reply));
  scope.post('/keys', (request, reply) => createKey(context, request, reply));
  for (const action of ['rotate', 'revoke'] as const) {
    scope.get<{ Params: { id: string } }>(`/keys/:id/${action}`, (request, reply) => confirmPage(context, action, request, reply));
    scope.post<{ Params: { id: string } }>(`/keys/:id/${action}`, (request, reply) => changeKey(context, action, request, reply));
  }
}

/** The keys the viewer may see, and the form that creates one. */
async function keysPage(
  context: PageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: KeyForm,
  notice: Html | string,
  status = 200,
) {
  const viewer = await viewerOf(context, request, reply);
  const production = await hasProductionAccess(context.accounts, actorOf(request));
  // Production's keys, even their names, are shown only with production access (production-access.ts).
  const keys = (await context.keys.list()).filter((key) => production || key.environment === 'test');
  const body = html`${notice}
<p>${production ? 'Keys of both environments' : 'Sandbox keys (production keys are listed once production access is approved)'}. A raw key is shown once, when it is created or rotated: only a hash of it is kept.</p>
${keyTable(keys, context.clock(), can(viewer.role, 'keys'))}
${
  can(viewer.role, 'keys')
    ? html`<h2 id="create">Create a key</h2>
${createForm(viewer.csrf, form, production)}`
    : ''
}
${careersSection(context.careers?.current())}`;
  return sendPage(reply, page('API keys', body, viewer, 'API keys'), status);
}

async function showKeys(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  return keysPage(context, request, reply, blankForm, html`${noticeOf(request)}${await revealed(context.forms, request)}`);
}

async function createKey(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const { form, origins, problem } = readForm(request.body);
  if (problem !== undefined) return keysPage(context, request, reply, form, errorNotice(problem), 422);
  try {
    return await answerOnce(context.forms, request, reply, async () => {
      const { raw, record } = await mintApiKey(
        context,
        actorOf(request),
        { name: form.name, environment: form.environment, type: form.type, scopes: form.scopes, origins },
        context.clock(),
      );
      const reveal = html`${shownOnce('raw-key', `${environmentName[record.environment]} ${record.type} key "${record.name}" created.`, raw)}
<p>Use it as <code>Authorization: Bearer ${record.environment}_${record.type}_…</code> in requests to the API.</p>`;
      return { location: '/dashboard/keys', reveal };
    });
  } catch (error) {
    if (error instanceof KeyRuleError) return keysPage(context, request, reply, form, errorNotice(error.message), 422);
    throw error;
  }
}

/** The page that asks before a key is rotated or revoked; 404 for a key that is not active. */
async function confirmPage(context: PageContext, action: KeyAction, request: KeyRequest, reply: FastifyReply) {
  const confirmation =
    action === 'rotate'
      ? 'Rotating replaces this key: a new raw key with the same name, environment, type, scopes and origins is shown once. The old key stops working at once, or keeps working beside the new one for the time you choose, so you can deploy the new one first.'
      : 'Revoking is permanent: every request with this key gets 401 from now on.';
  const key = await context.keys.get(request.params.id);
  const viewer = await viewerOf(context, request, reply);
  const title = action === 'rotate' ? 'Rotate a key' : 'Revoke a key';
  // A rolled key still working may be revoked before its expiry, not rotated again.
  const changeable = key !== undefined && (key.revoked_at === null || (action === 'revoke' && rollingAt(key, context.clock())));
  if (!changeable) {
    const gone = html`<div class="notice error" role="alert"><p>There is no active key ${request.params.id}.</p></div><p><a href="/dashboard/keys">Back to the keys</a></p>`;
    return sendPage(reply, page(title, gone, viewer, 'API keys'), 404);
  }
  const body = html`<p>${confirmation}</p>
<p>Key: <strong>${key.name}</strong> (<code>${shortKey(key)}</code>, ${environmentName[key.environment]})</p>
<form method="post" action="/dashboard/keys/${key.id}/${action}" class="actions">
${formTokens(viewer.csrf)}
${
  action === 'rotate'
    ? html`<label for="expires_in">The old key</label>
<select id="expires_in" name="expires_in">${rollExpiryNames.map((name) => html`<option value="${name}"${name === 'now' ? html` selected` : ''}>${rollChoices[name]}</option>`)}</select>`
    : ''
}
<button type="submit"${action === 'revoke' ? html` class="danger"` : ''}>${action === 'rotate' ? 'Rotate key' : 'Revoke key'}</button>
<a class="button secondary" href="/dashboard/keys">Cancel</a>
</form>`;
  return sendPage(reply, page(title, body, viewer, 'API keys'));
}

async function changeKey(context: PageContext, action: KeyAction, request: KeyRequest, reply: FastifyReply) {
  // A rotation's form says how long the old key keeps working; a revocation's has no field.
  const expiresIn = action === 'rotate' ? formValues({ expires_in: oneOf(rollExpiryNames) }, request.body).expires_in : undefined;
  if (action === 'revoke') formValues({}, request.body);
  try {
    return await answerOnce(context.forms, request, reply, async () => {
      if (action === 'revoke') {
        await revokeApiKey(context, actorOf(request), request.params.id, context.clock());
        return { location: '/dashboard/keys?done=revoked' };
      }
      const { raw, record } = await rotateApiKey(context, actorOf(request), request.params.id, context.clock(), expiresIn);
      const old = expiresIn === undefined || expiresIn === 'now' ? 'the old key no longer works' : `the old key ${rollChoices[expiresIn]}`;
      return { location: '/dashboard/keys', reveal: shownOnce('raw-key', `Key "${record.name}" rotated: ${old}.`, raw) };
    });
  } catch (error) {
    if (error instanceof KeyRuleError) return keysPage(context, request, reply, blankForm, errorNotice(error.message), 409);
    throw error;
  }
}
