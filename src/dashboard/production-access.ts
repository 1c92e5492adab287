import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasProductionAccess } from '../commands/accounts.js';
import { actorOf, type DashboardContext, sendPage, viewerOf } from './context.js';
import { html } from './html.js';
import { page } from './layout.js';

const KEY_ID = /^key_[0-9A-Z]{26}$/;

/**
 * Whether the request is about production's resources: its address names the production environment, or a
 * production key. Read from the route's parameters, not from a list of routes, so a route added later is covered.
 */
async function namesProduction(request: FastifyRequest, context: DashboardContext): Promise<boolean> {
  const params = Object.values((request.params ?? {}) as Record<string, unknown>);
  if (params.includes('production')) return true;
  for (const param of params)
    if (typeof param === 'string' && KEY_ID.test(param) && (await context.keys.get(param))?.environment === 'live') return true;
  return false;
}

/**
 * The one guard on production in the dashboard (a preHandler of every route): without the account's approved
 * application, every page and form on production's keys, endpoints, events and usage is refused with 403, and
 * nothing is shown or changed.
 */
export function guardProduction(context: DashboardContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.signedIn === undefined || !(await namesProduction(request, context))) return;
    if (await hasProductionAccess(context.accounts, actorOf(request))) return;
    const viewer = await viewerOf(context, request, reply);
    const body = html`<div class="notice error" role="alert"><p>Production access needs an approved application: nothing of production is shown or changed until the operator approves the account's application.</p></div>
<p><a href="/dashboard/production">Apply for production access, or see where the application stands</a> · <a href="/dashboard/sandbox/webhooks">Go on in the sandbox</a></p>`;
    return sendPage(reply, page('Production access needed', body, viewer, 'Production access'), 403);
  };
}
