import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { emailIndex } from '../commands/accounts.js';
import { hasTwoFactor } from '../commands/two-factor.js';
import { activity, decoyPasswordHash, passwordHash, passwordMatches, passwordProblem, tokenHash } from '../domain/accounts.js';
import { redactSecrets } from '../support/secret-redaction.js';
import { csrfToken, type DashboardContext, queryValue, seeOther, sendPage } from './context.js';
import { formValues, text } from './form-values.js';
import { type Html, html } from './html.js';
import { errorNotice, formTokens, page } from './layout.js';
import { askForCode } from './pending-sign-in.js';
import { endSession, startSession } from './sessions.js';

/** Failed sign-ins counted over this window: past these, sign-in answers 429 until the window has moved on. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Per user: guessing one person's password stops early. Per address: one machine trying many people stops too. */
export const FAILURES_PER_USER = 10;
export const FAILURES_PER_ADDRESS = 30;

/**
 * Where to go after signing in: a dashboard page, never another site (`//evil.example` is a host, not a path),
 * and never with a key pasted into it (redacted, so it is neither echoed into the form nor followed).
 */
export function nextPage(value: string): string {
  const page = redactSecrets(value);
  return /^\/dashboard\/[A-Za-z0-9/_?=&.-]*$/.test(page) && !page.startsWith('//') ? page : '/dashboard/keys';
}

function signInForm(csrf: string, next: string, email: string, notice: Html | string): Html {
  return html`<div class="signin">
${notice}
<form method="post" action="/dashboard/sign-in">
${formTokens(csrf)}
<input type="hidden" name="next" value="${next}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="hint">No account yet? The operator of this service makes one for you (<code>nature users create</code>) and sends you a set-up link.</p>
</div>`;
}

export function registerSignIn(scope: FastifyInstance, context: DashboardContext): void {
  scope.get('/sign-in', signInPage);
  scope.post('/sign-in', (request, reply) => signIn(context, request, reply));
  scope.post('/sign-out', (request, reply) => signOut(context, request, reply));
  scope.get('/setup', (request, reply) => setupPage(context, request, reply));
  scope.post('/setup', (request, reply) => setPassword(context, request, reply));
}

async function signInPage(request: FastifyRequest, reply: FastifyReply) {
  if (request.signedIn !== undefined) return seeOther(reply, '/dashboard/keys');
  const notice =
    queryValue(request, 'signed_out') === '1'
      ? html`<div class="notice success" role="status"><p>You are signed out.</p></div>`
      : queryValue(request, 'next') !== ''
        ? html`<div class="notice" role="status"><p>Sign in to see that page.</p></div>`
        : '';
  const form = signInForm(csrfToken(request, reply), nextPage(queryValue(request, 'next')), '', notice);
  return sendPage(reply, page('Sign in', form));
}

/** Signs in with a password, throttled per user and per address: the session starts, and the browser goes where it asked. */
async function signIn(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const { email, password, next: asked } = formValues({ email: text, password: text, next: text.optional() }, request.body);
  const next = nextPage(asked ?? '');
  const now = context.clock();
  const since = new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString();
  const dataKeys = context.envs.test.dataKeys;
  // Keyed hashes, as the e-mail index is: the store never holds a client's address or a typed e-mail in plain text.
  const secret = await dataKeys.environmentSecret();
  const address = createHmac('sha256', secret).update(`nature-sign-in-address:${request.ip}`).digest('hex');
  const index = await emailIndex({ accounts: context.accounts, dataKeys }, email);
  const throttleKeys = [`address:${address}`, `user:${index}`];
  const refuse = (status: number, message: string) =>
    sendPage(reply, page('Sign in', signInForm(csrfToken(request, reply), next, email, errorNotice(message))), status);

  // Counted before the password is checked, so attempts sent together cannot all slip under the limit; taken back if right.
  const attemptAt = now.toISOString();
  const [byAddress = 0, byUser = 0] = await context.accounts.recordFailure(throttleKeys, attemptAt, since);
  if (byAddress > FAILURES_PER_ADDRESS || byUser > FAILURES_PER_USER) {
    reply.header('retry-after', String(FAILURE_WINDOW_MS / 1000));
    return refuse(429, 'Too many failed sign-ins. Wait 15 minutes and try again, or ask your operator for a set-up link.');
  }
  const user = await context.accounts.userByEmailIndex(index);
  // A wrong address takes as long as a wrong password, so the time taken does not say who has an account.
  const matches = await passwordMatches(password, user?.password_hash ?? (await decoyPasswordHash));
  if (user === undefined || user.password_hash === null || !matches)
    return refuse(401, 'That e-mail address and password do not match an account here.');
  await context.accounts.forgetFailure(throttleKeys, attemptAt);
  // With two-factor sign-in on, no session yet: the code comes first (two-factor-sign-in.ts).
  if (await hasTwoFactor(context.accounts, user)) return askForCode(context.accounts, request, reply, user, next, now);
  const signedIn = activity({ type: 'user', user_id: user.id }, 'user.signed_in', user.id, '', now);
  await startSession(context.accounts, request, reply, user.id, now, { signedIn });
  return seeOther(reply, next);
}

async function signOut(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  formValues({}, request.body);
  await endSession(context.accounts, request, reply);
  return seeOther(reply, '/dashboard/sign-in?signed_out=1');
}

/** The form a new password is chosen with (a set-up link's, an invitation's), carrying the link's token. */
export const newPasswordForm = (
  csrf: string,
  token: string,
  action: string,
  button: string,
) => html`<p>Choose the password you will sign in with: at least 12 characters. A passphrase of a few unrelated words is easy to type and hard to guess.</p>
<form method="post" action="${action}">
${formTokens(csrf)}
<input type="hidden" name="token" value="${token}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<label for="confirm">The same password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required>
<div class="actions"><button type="submit">${button}</button></div>
</form>`;

/** Why a chosen password (typed twice) is refused, or undefined. */
export const choiceProblem = (password: string, confirm: string) =>
  passwordProblem(password) ?? (password === confirm ? undefined : 'The two passwords differ.');

const setupForm = (csrf: string, token: string, notice: Html | string) => html`<div class="signin">
${notice}
${newPasswordForm(csrf, token, '/dashboard/setup', 'Set password and sign in')}
</div>`;
const spent = html`<div class="notice error" role="alert"><p>This set-up link was used already or has expired. Ask your operator for a new one (<code>nature users reset</code>).</p></div>`;

/** The user a set-up link names while it works. */
async function userOfToken(context: DashboardContext, token: string) {
  if (token === '' || token.length > 100) return undefined;
  const user = await context.accounts.userBySetupToken(tokenHash(token));
  if (user === undefined || user.setup_expires_at === null || Date.parse(user.setup_expires_at) <= context.clock().getTime())
    return undefined;
  return user;
}

async function setupPage(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const token = queryValue(request, 'token');
  if ((await userOfToken(context, token)) === undefined) return sendPage(reply, page('Set your password', spent), 404);
  // The link's token stays out of later requests' Referer: the whole API sends no-referrer.
  return sendPage(reply, page('Set your password', setupForm(csrfToken(request, reply), token, '')));
}

/** Sets the password a set-up link was sent for, once: the user's other sessions end and a new one starts (after a code, with two-factor sign-in on). */
async function setPassword(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const { token, password, confirm } = formValues({ token: text, password: text, confirm: text }, request.body);
  const user = await userOfToken(context, token);
  if (user === undefined) return sendPage(reply, page('Set your password', spent), 404);
  const problem = choiceProblem(password, confirm);
  if (problem !== undefined)
    return sendPage(reply, page('Set your password', setupForm(csrfToken(request, reply), token, errorNotice(problem))), 422);
  const now = context.clock();
  const set = activity({ type: 'user', user_id: user.id }, 'user.password_set', user.id, '', now);
  if (!(await context.accounts.setPassword(user.id, await passwordHash(password), tokenHash(token), set)))
    return sendPage(reply, page('Set your password', spent), 404);
  // A set-up link proves the mailbox, not the phone: with two-factor sign-in on, the code is still asked for.
  if (await hasTwoFactor(context.accounts, user)) return askForCode(context.accounts, request, reply, user, '/dashboard/keys', now);
  await startSession(context.accounts, request, reply, user.id, now);
  return seeOther(reply, '/dashboard/keys');
}
