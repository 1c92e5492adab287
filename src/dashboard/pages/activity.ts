import type { FastifyInstance } from 'fastify';
import { emailOf, hasProductionAccess } from '../../commands/accounts.js';
import { ACCOUNT_ID, type Actor } from '../../domain/accounts.js';
import { actorOf, type DashboardContext, sendPage, viewerOf } from '../context.js';
import { html } from '../html.js';
import { page, when } from '../layout.js';

const SHOWN = 200;

export function registerActivityPage(scope: FastifyInstance, context: DashboardContext): void {
  scope.get('/activity', async (request, reply) => {
    const viewer = await viewerOf(context, request, reply);
    // Without production access, nothing of production is shown here either: not even a live key's name.
    const production = await hasProductionAccess(context.accounts, actorOf(request));
    const entries = [];
    for (const entry of await context.accounts.activity(ACCOUNT_ID, SHOWN))
      if (production || (await context.keys.get(entry.target))?.environment !== 'live') entries.push(entry);
    const names = new Map<string, string>();
    const who = async (actor: Actor) => {
      if (actor.type === 'operator') return 'the operator (nature command)';
      if (!names.has(actor.user_id)) {
        const user = await context.accounts.user(actor.user_id);
        names.set(
          actor.user_id,
          user === undefined
            ? `a removed member (${actor.user_id})`
            : await emailOf({ accounts: context.accounts, dataKeys: context.envs.test.dataKeys }, user),
        );
      }
      return names.get(actor.user_id)!;
    };
    const rows = [];
    for (const entry of entries)
      rows.push(
        html`<tr><td>${when(entry.at)}</td><td>${await who(entry.actor)}</td><td>${entry.action}</td><td><code>${entry.target}</code></td><td>${entry.detail}</td></tr>`,
      );
    const body = html`<p>Every change made to this account's keys, webhook endpoints and production access, and every sign-in, newest first (the last ${SHOWN}).</p>
${
  rows.length === 0
    ? html`<p>Nothing yet.</p>`
    : html`<div class="scroll" tabindex="0"><table><caption class="visually-hidden">Activity, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">On</th><th scope="col">Detail</th></tr></thead><tbody>${rows}</tbody></table></div>`
}`;
    return sendPage(reply, page('Activity', body, viewer, 'Activity'));
  });
}
