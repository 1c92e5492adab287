import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { emailOf } from '../../commands/accounts.js';
import {
  beginEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  hasTwoFactor,
  replaceRecoveryCodes,
  secretOf,
  setTwoFactorRequired,
  verifySecondFactor,
} from '../../commands/two-factor.js';
import { passwordMatches } from '../../domain/accounts.js';
import { can } from '../../domain/permissions.js';
import { RECOVERY_CODES, type TwoFactorRecord, totpUri } from '../../domain/two-factor.js';
import { actorOf, field, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext, revealed } from '../form-once.js';
import { formValues, oneOf, text } from '../form-values.js';
import { type Html, html } from '../html.js';
import { errorNotice, formTokens, page, when } from '../layout.js';
import { qrCode } from '../qr-code.js';
import { THROTTLED, throttled } from '../second-factor.js';
import { FAILURE_WINDOW_MS } from '../sign-in.js';

export const SECURITY_PAGE = '/dashboard/security';
/** What a member the account requires two-factor sign-in of may reach before they have it: the page that sets it up. */
export const ENROLMENT_PATHS = new Set([SECURITY_PAGE, `${SECURITY_PAGE}/two-factor/start`, `${SECURITY_PAGE}/two-factor/confirm`]);

const done = {
  off: 'Two-factor sign-in is off: you sign in with your password alone.',
  required: 'Every member now signs in with a code: one without two-factor sign-in is led to set it up before anything else.',
  optional: 'Two-factor sign-in is now left to each member.',
} as const;

/** A form refused for what was typed in it (a wrong code): the page again, with why, and nothing changed. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function registerSecurityPage(scope: FastifyInstance, context: PageContext): void {
  scope.get('/security', (request, reply) => showSecurity(context, request, reply));
  scope.post('/security/two-factor/start', (request, reply) => startEnrolment(context, request, reply));
  scope.post('/security/two-factor/confirm', (request, reply) => confirm(context, request, reply));
  scope.post('/security/recovery-codes', (request, reply) => newRecoveryCodes(context, request, reply));
  scope.post('/security/two-factor/disable', (request, reply) => turnOff(context, request, reply));
  scope.post('/security/requirement', (request, reply) => setRequirement(context, request, reply));
}

const accountContext = (context: PageContext) => ({ accounts: context.accounts, dataKeys: context.envs.test.dataKeys });

/** The secret four characters at a time, as an app's "enter a setup key" field is easiest typed from. */
const grouped = (secret: string) => secret.replace(/(.{4})(?!$)/g, '$1 ');

/** A pending enrolment: the QR code, the same key as text, and the field whose code turns it on. */
async function enrolmentSection(context: PageContext, record: TwoFactorRecord, email: string, csrf: string): Promise<Html> {
  const secret = await secretOf(accountContext(context), record);
  return html`<ol class="steps">
<li><p>In your authenticator app (such as Google Authenticator, Microsoft Authenticator, 1Password or FreeOTP), add an account by scanning this QR code:</p>
${await qrCode(totpUri(secret, email), 'QR code with the setup key for your authenticator app')}
<p>Or, where the app cannot scan, enter this setup key: <code id="totp-secret">${grouped(secret)}</code> <span class="hint">(time-based, 6 digits, every 30 seconds)</span></p></li>
<li><form method="post" action="${SECURITY_PAGE}/two-factor/confirm">
${formTokens(csrf)}
<label for="confirm-code">The six-digit code the app now shows</label>
<input id="confirm-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="10" required>
<div class="actions"><button type="submit">Turn on two-factor sign-in</button></div>
</form></li>
</ol>`;
}

/** A form that asks for the password and a current code again before it acts: the same person, now. */
const reauthenticated = (action: string, prefix: string, button: Html, csrf: string) => html`<form method="post" action="${action}">
${formTokens(csrf)}
<label for="${prefix}-password">Your password</label>
<input id="${prefix}-password" name="password" type="password" autocomplete="current-password" required>
<label for="${prefix}-code">A code from your app, or a recovery code</label>
<input id="${prefix}-code" name="code" type="text" autocomplete="one-time-code" maxlength="40" required>
<div class="actions">${button}</div>
</form>`;

function enabledSection(record: TwoFactorRecord, csrf: string): Html {
  const left = record.recovery_code_hashes.length;
  return html`<p>On since ${when(record.enabled_at)}: each sign-in asks for a code from your authenticator app. ${left} of ${RECOVERY_CODES} recovery codes left.</p>
<h3>New recovery codes</h3>
<p>Ten new codes replace every old one, used or not; they are shown once.</p>
${reauthenticated(`${SECURITY_PAGE}/recovery-codes`, 'codes', html`<button type="submit">Show new recovery codes</button>`, csrf)}
<h3>Turn two-factor sign-in off</h3>
<p>Your password alone will sign you in, and your recovery codes stop working.</p>
${reauthenticated(`${SECURITY_PAGE}/two-factor/disable`, 'off', html`<button type="submit" class="danger">Turn off two-factor sign-in</button>`, csrf)}`;
}

function requirementSection(required: boolean, csrf: string): Html {
  return html`<h2 id="requirement">Required for every member</h2>
<p>${required ? 'Every member of this account signs in with a code: one without two-factor sign-in sets it up before reaching any other page.' : 'Each member chooses whether to use two-factor sign-in.'}</p>
${
  required
    ? reauthenticated(
        `${SECURITY_PAGE}/requirement`,
        'requirement',
        html`<input type="hidden" name="required" value="no"><button type="submit" class="secondary">Stop requiring two-factor sign-in</button>`,
        csrf,
      )
    : html`<form method="post" action="${SECURITY_PAGE}/requirement">
${formTokens(csrf)}
<input type="hidden" name="required" value="yes">
<div class="actions"><button type="submit">Require two-factor sign-in of every member</button></div>
</form>`
}`;
}

/** The signed-in person's own sign-in security, and (for those who may) the account's requirement. */
async function securityPage(context: PageContext, request: FastifyRequest, reply: FastifyReply, notice: Html | string, status = 200) {
  const viewer = await viewerOf(context, request, reply);
  const user = request.signedIn!.user;
  const record = await context.accounts.twoFactor.get(user.id);
  const required = await context.accounts.twoFactor.required(user.account_id);
  const enrolling = required && record?.enabled_at == null;
  const state =
    record === undefined
      ? html`<p>Off: you sign in with your password alone. With two-factor sign-in, each sign-in also asks for a six-digit code from an app on your phone, so a stolen password is not enough.</p>
<form method="post" action="${SECURITY_PAGE}/two-factor/start">${formTokens(viewer.csrf)}<div class="actions"><button type="submit">Set up two-factor sign-in</button></div></form>`
      : record.enabled_at === null
        ? await enrolmentSection(context, record, await emailOf(accountContext(context), user), viewer.csrf)
        : enabledSection(record, viewer.csrf);
  const body = html`${notice}
${enrolling ? html`<div class="notice" role="status"><p>This account requires two-factor sign-in: set it up here to go on to the rest of the dashboard.</p></div>` : ''}
<h2 id="two-factor">Two-factor sign-in</h2>
${state}
${can(user.role, 'ownership') ? requirementSection(required, viewer.csrf) : ''}`;
  return sendPage(reply, page('Security', body, viewer, 'Security'), status);
}

async function showSecurity(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const code = field(request.query, 'done');
  const notice = Object.hasOwn(done, code)
    ? html`<div class="notice success" role="status"><p>${done[code as keyof typeof done]}</p></div>`
    : '';
  return securityPage(context, request, reply, html`${notice}${await revealed(context.forms, request)}`);
}

/** Recovery codes shown once, with a copy button (shown by the script) for all ten. */
const shownCodes = (heading: string, codes: string[]) => html`<div class="notice success" role="status">
<p><strong>${heading}</strong> Each works once, in place of a code from your app. This is the only time they are shown: store them now, in a password manager or on paper.</p>
<ol id="recovery-codes">
${codes.map((code) => html`<li><code>${code}</code></li>\n`)}</ol>
<button type="button" class="secondary" data-copy="recovery-codes" hidden>Copy the codes</button><span id="recovery-codes-status" aria-live="polite"></span>
</div>`;

/** Runs a form's change once (form-once.ts); a refusal shows the page again with why, and changes nothing. */
async function acting(
  context: PageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  act: () => Promise<{ location: string; reveal?: Html }>,
) {
  try {
    return await answerOnce(context.forms, request, reply, act);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    if (error.status === 429) reply.header('retry-after', String(FAILURE_WINDOW_MS / 1000));
    return securityPage(context, request, reply, errorNotice(error.message), error.status);
  }
}

async function startEnrolment(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  formValues({}, request.body);
  return acting(context, request, reply, async () => {
    await beginEnrolment(accountContext(context), request.signedIn!.user, context.clock());
    return { location: `${SECURITY_PAGE}#two-factor` };
  });
}

async function confirm(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const { code } = formValues({ code: text }, request.body);
  const user = request.signedIn!.user;
  return acting(context, request, reply, async () => {
    const now = context.clock();
    const codes = await throttled(context.accounts, user, now, () => confirmEnrolment(accountContext(context), user, code, now));
    if (codes === 'throttled') throw new Refused(429, THROTTLED);
    if (codes === undefined)
      throw new Refused(
        422,
        "That code is not the one your app shows now for this key. Check the app's clock is right, and enter the newest code.",
      );
    // Turned on, maybe because the password leaked: the person's other sessions, begun with it alone, end.
    await context.accounts.deleteSessionsOf(user.id, request.signedIn!.session.id_hash);
    return { location: SECURITY_PAGE, reveal: shownCodes('Two-factor sign-in is on. Your recovery codes:', codes) };
  });
}

/** The fields of a `reauthenticated` form: the password and a current code. */
const again = { password: text, code: text };

/** The password and a current code, checked (and counted) before a change that weakens or reveals. */
async function reauthenticate(context: PageContext, request: FastifyRequest, { password, code }: { password: string; code: string }) {
  const user = request.signedIn!.user;
  const now = context.clock();
  const passed = await throttled(context.accounts, user, now, async () =>
    user.password_hash !== null && (await passwordMatches(password, user.password_hash))
      ? verifySecondFactor(accountContext(context), user, code, now)
      : undefined,
  );
  if (passed === 'throttled') throw new Refused(429, THROTTLED);
  if (passed === undefined)
    throw new Refused(401, 'That password and code do not match: nothing was changed. Enter a code your app shows now.');
}

async function newRecoveryCodes(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const typed = formValues(again, request.body);
  return acting(context, request, reply, async () => {
    await reauthenticate(context, request, typed);
    const codes = await replaceRecoveryCodes(context.accounts, request.signedIn!.user, context.clock());
    if (codes === undefined) throw new Refused(409, 'Two-factor sign-in is off: there are no recovery codes to replace.');
    return { location: SECURITY_PAGE, reveal: shownCodes('Your new recovery codes: the old ones no longer work.', codes) };
  });
}

async function turnOff(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const typed = formValues(again, request.body);
  return acting(context, request, reply, async () => {
    await reauthenticate(context, request, typed);
    await disableTwoFactor(context.accounts, actorOf(request), request.signedIn!.user, context.clock());
    return { location: `${SECURITY_PAGE}?done=off` };
  });
}

async function setRequirement(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  // Stopping the requirement weakens every member's sign-in: it asks for the password and a current code again.
  const form =
    (request.body as { required?: unknown } | undefined)?.required === 'no'
      ? formValues({ required: oneOf(['no']), ...again }, request.body)
      : formValues({ required: oneOf(['yes']) }, request.body);
  const { required } = form;
  const user = request.signedIn!.user;
  return acting(context, request, reply, async () => {
    if ('password' in form) await reauthenticate(context, request, form);
    // An owner without it would be led to set it up at once: they set it up first, knowingly.
    if (required === 'yes' && !(await hasTwoFactor(context.accounts, user)))
      throw new Refused(409, 'Turn on two-factor sign-in for yourself first, then require it of every member.');
    await setTwoFactorRequired(context.accounts, user, required === 'yes', context.clock());
    return { location: `${SECURITY_PAGE}?done=${required === 'yes' ? 'required' : 'optional'}` };
  });
}
