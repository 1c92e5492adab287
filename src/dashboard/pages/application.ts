import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApplicationInput, submitApplication } from '../../commands/accounts.js';
import { ACCOUNT_ID, type ApplicationRecord } from '../../domain/accounts.js';
import { can } from '../../domain/permissions.js';
import { lineProblem } from '../../domain/text.js';
import { noticeOf, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext } from '../form-once.js';
import { formValues, text } from '../form-values.js';
import { type Html, html } from '../html.js';
import { badge, errorNotice, formTokens, page, when } from '../layout.js';

const MAX_COMPLETIONS = 10_000_000;

function statusOf(application: ApplicationRecord | undefined): Html {
  if (application === undefined)
    return html`<p>Sandbox keys need nothing. Production keys (live_) need this account's application to be approved by the operator of this service.</p>`;
  const decided = application.decided_at === null ? '' : html` on ${when(application.decided_at)}`;
  const reason = application.reason === null ? '' : html`<p>Reason: ${application.reason}</p>`;
  const next =
    application.status === 'approved'
      ? html`<p>You can now create production keys on the <a href="/dashboard/keys">keys page</a>.</p>`
      : application.status === 'pending'
        ? html`<p>The operator reviews it and approves or rejects it; this page shows the outcome.</p>`
        : html`<p>You may change the application and send it again below.</p>`;
  return html`<div class="notice${application.status === 'rejected' ? ' error' : application.status === 'approved' ? ' success' : ''}" role="status">
<p>Application ${badge(application.status)}${decided}: submitted ${when(application.submitted_at)} for ${application.organisation}.</p>
${reason}${next}
</div>`;
}

function applicationForm(csrf: string, input: Partial<Record<keyof ApplicationInput, string>>): Html {
  return html`<h2>Apply for production access</h2>
<form method="post" action="/dashboard/production">
${formTokens(csrf)}
<label for="organisation">Organisation</label>
<input id="organisation" name="organisation" type="text" maxlength="200" required value="${input.organisation ?? ''}">
<label for="intended_use">Intended use <span class="hint">(who answers the assessment, and what you do with the profiles)</span></label>
<textarea id="intended_use" name="intended_use" maxlength="2000" required>${input.intended_use ?? ''}</textarea>
<label for="expected">Expected completed assessments per month</label>
<input id="expected" name="expected_monthly_completions" type="number" min="1" max="${MAX_COMPLETIONS}" step="1" required value="${input.expected_monthly_completions ?? ''}">
<div class="actions"><button type="submit">Send application</button></div>
</form>`;
}

function readInput(body: unknown): { input: ApplicationInput; raw: Record<keyof ApplicationInput, string>; problem?: string } {
  const sent = formValues({ organisation: text, intended_use: text, expected_monthly_completions: text }, body);
  const raw = {
    organisation: sent.organisation.trim(),
    intended_use: sent.intended_use.trim(),
    expected_monthly_completions: sent.expected_monthly_completions.trim(),
  };
  const expected = /^\d{1,8}$/.test(raw.expected_monthly_completions) ? Number(raw.expected_monthly_completions) : Number.NaN;
  const input = { organisation: raw.organisation, intended_use: raw.intended_use, expected_monthly_completions: expected };
  const problem =
    lineProblem('The organisation', raw.organisation, 200) ??
    (raw.intended_use === '' || [...raw.intended_use].length > 2000
      ? 'Say how you will use the assessment, in at most 2,000 characters.'
      : !(expected >= 1 && expected <= MAX_COMPLETIONS)
        ? `Expected completions per month is a whole number from 1 to ${MAX_COMPLETIONS.toLocaleString('en')}.`
        : undefined);
  return { input, raw, ...(problem !== undefined && { problem }) };
}

export function registerApplicationPages(scope: FastifyInstance, context: PageContext): void {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    raw: Partial<Record<keyof ApplicationInput, string>>,
    notice: Html | string,
    status = 200,
  ) => {
    const viewer = await viewerOf(context, request, reply);
    const application = await context.accounts.application(ACCOUNT_ID);
    const open = application === undefined || application.status === 'rejected';
    const form = open && can(viewer.role, 'production') ? applicationForm(viewer.csrf, raw) : '';
    return sendPage(reply, page('Production access', html`${notice}${statusOf(application)}${form}`, viewer, 'Production access'), status);
  };

  scope.get('/production', (request, reply) => show(request, reply, {}, noticeOf(request)));

  scope.post('/production', async (request, reply) => {
    const { input, raw, problem } = readInput(request.body);
    if (problem !== undefined) return show(request, reply, raw, errorNotice(problem), 422);
    return answerOnce(context.forms, request, reply, async () => {
      const current = await context.accounts.application(ACCOUNT_ID);
      // A pending or approved application stands: the form sent from a second tab changes nothing.
      if (current === undefined || current.status === 'rejected')
        await submitApplication(context.accounts, input, request.signedIn!.user.id, context.clock());
      return { location: '/dashboard/production?done=applied' };
    });
  });
}
