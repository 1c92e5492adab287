import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptInvitation, invitedEmail, MemberRuleError, workingInvitation } from '../../commands/members.js';
import type { InvitationRecord } from '../../domain/members.js';
import { powersOf } from '../../domain/permissions.js';
import { csrfToken, type DashboardContext, queryValue, seeOther, sendPage } from '../context.js';
import { formValues, text } from '../form-values.js';
import { type Html, html } from '../html.js';
import { errorNotice, page, when } from '../layout.js';
import { startSession } from '../sessions.js';
import { choiceProblem, newPasswordForm } from '../sign-in.js';

const TITLE = 'Join the account';

const spent = html`<div class="notice error" role="alert"><p>This invitation was used already, was revoked, or has expired. Ask whoever invited you for a new one.</p></div>`;

/** What the invitee is asked: the role they join with and what it lets them do, and the password they will sign in with. */
function acceptForm(csrf: string, token: string, invitation: InvitationRecord, email: string, notice: Html | string): Html {
  const powers = powersOf(invitation.role);
  return html`<div class="signin">
${notice}
<p>You are invited to join this account's dashboard as <strong>${invitation.role}</strong>, signing in as <strong>${email}</strong>. You may read its pages${powers.length === 0 ? ', and change nothing' : html`, ${powers.join(', ')}`}. The invitation works until ${when(invitation.expires_at)}.</p>
${newPasswordForm(csrf, token, '/dashboard/invitation', 'Join and sign in')}
</div>`;
}

const accountsOf = (context: DashboardContext) => ({ accounts: context.accounts, dataKeys: context.envs.test.dataKeys });

/** The page an invitation's link opens (signed out or not), and the form that accepts it. */
export function registerInvitationPages(scope: FastifyInstance, context: DashboardContext): void {
  scope.get('/invitation', (request, reply) => invitationPage(context, request, reply));
  scope.post('/invitation', (request, reply) => accept(context, request, reply));
}

async function invitationPage(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const token = queryValue(request, 'token');
  const invitation = await workingInvitation(accountsOf(context), token, context.clock());
  if (invitation === undefined) return sendPage(reply, page(TITLE, spent), 404);
  const email = await invitedEmail(accountsOf(context), invitation);
  return sendPage(reply, page(TITLE, acceptForm(csrfToken(request, reply), token, invitation, email, '')));
}

/** Makes the member with the password chosen, spends the invitation and signs them in. */
async function accept(context: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const { token, password, confirm } = formValues({ token: text, password: text, confirm: text }, request.body);
  const now = context.clock();
  const invitation = await workingInvitation(accountsOf(context), token, now);
  if (invitation === undefined) return sendPage(reply, page(TITLE, spent), 404);
  const problem = choiceProblem(password, confirm);
  const again = async (notice: Html | string, status: number) => {
    const email = await invitedEmail(accountsOf(context), invitation);
    return sendPage(reply, page(TITLE, acceptForm(csrfToken(request, reply), token, invitation, email, notice)), status);
  };
  if (problem !== undefined) return again(errorNotice(problem), 422);
  try {
    const member = await acceptInvitation(accountsOf(context), token, password, now);
    if (member === undefined) return sendPage(reply, page(TITLE, spent), 404);
    await startSession(context.accounts, request, reply, member.id, now);
    return seeOther(reply, '/dashboard/keys?done=joined');
  } catch (error) {
    if (error instanceof MemberRuleError) return again(errorNotice(error.message), 409);
    throw error;
  }
}
