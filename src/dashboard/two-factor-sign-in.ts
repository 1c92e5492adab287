import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifySecondFactor } from '../commands/two-factor.js';
import { activity } from '../domain/accounts.js';
import { csrfToken, type DashboardContext, queryValue, seeOther, sendPage } from './context.js';
import { formValues, text } from './form-values.js';
import { type Html, html } from './html.js';
import { errorNotice, formTokens, page } from './layout.js';
import { CODE_PAGE, forgetPending, pendingOf } from './pending-sign-in.js';
import { THROTTLED, throttled } from './second-factor.js';
import { startSession } from './sessions.js';
import { FAILURE_WINDOW_MS, nextPage } from './sign-in.js';

const TITLE = 'Two-factor sign-in';

function codeForm(csrf: string, next: string, notice: Html | string): Html {
  return html`<div class="signin">
${notice}
<p>Your password was right. Now enter the six-digit code your authenticator app shows for this dashboard, or one of your recovery codes.</p>
<form method="post" action="${CODE_PAGE}">
${formTokens(csrf)}
<input type="hidden" name="next" value="${next}">
<label for="code">Code</label>
<input id="code" name="code" type="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="40" required aria-describedby="code-hint">
<p id="code-hint" class="hint">A recovery code (such as 7K3M-Q9ZD-2TXW-8HRN) works once: use one when your app is not at hand.</p>
<div class="actions"><button type="submit">Verify and sign in</button></div>
</form>
</div>`;
}

/** The sign-in has ended (too slow, already used, or never started): the password is asked for again. */
const ended = html`<div class="notice error" role="alert"><p>This sign-in has ended: it waits 10 minutes for a code. Sign in again with your password.</p></div>
<p><a href="/dashboard/sign-in">Sign in</a></p>`;

export function registerTwoFactorSignIn(scope: FastifyInstance, context: DashboardContext): void {
  scope.get('/sign-in/two-factor', (request, reply) => codePage(context, request, reply));
  scope.post('/sign-in/two-factor', (request, reply) => signInWithCode(context, request, reply));
}

async function codePage(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  if (request.signedIn !== undefined) return seeOther(reply, '/dashboard/keys');
  if ((await pendingOf(context.accounts, request, context.clock())) === undefined) return sendPage(reply, page(TITLE, ended), 401);
  return sendPage(reply, page(TITLE, codeForm(csrfToken(request, reply), nextPage(queryValue(request, 'next')), '')));
}

/** The second step of a sign-in: a right code, not used before, starts the session; the waiting sign-in is spent. */
async function signInWithCode(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const { code, next: asked } = formValues({ code: text, next: text.optional() }, request.body);
  const next = nextPage(asked ?? '');
  const now = context.clock();
  const pending = await pendingOf(context.accounts, request, now);
  const user = pending === undefined ? undefined : await context.accounts.user(pending.user_id);
  if (pending === undefined || user === undefined) return sendPage(reply, page(TITLE, ended), 401);
  const refuse = (status: number, message: string) =>
    sendPage(reply, page(TITLE, codeForm(csrfToken(request, reply), next, errorNotice(message))), status);

  const dataKeys = context.envs.test.dataKeys;
  const by = await throttled(context.accounts, user, now, () =>
    verifySecondFactor({ accounts: context.accounts, dataKeys }, user, code, now),
  );
  if (by === 'throttled') {
    reply.header('retry-after', String(FAILURE_WINDOW_MS / 1000));
    return refuse(429, THROTTLED);
  }
  if (by === undefined) return refuse(401, 'That code is not right, or was used already. Enter the code your app shows now.');
  const how = by === 'authenticator' ? 'with an authenticator code' : 'with a recovery code';
  const signedIn = activity({ type: 'user', user_id: user.id }, 'user.signed_in', user.id, how, now);
  // The waiting sign-in is spent as the session starts, in one write: two requests with it make one session, not two.
  if ((await startSession(context.accounts, request, reply, user.id, now, { signedIn, spending: pending.id_hash })) === undefined)
    return sendPage(reply, page(TITLE, ended), 401);
  forgetPending(request, reply);
  return seeOther(reply, next);
}
