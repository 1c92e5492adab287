import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AccountContext, emailOf } from '../../commands/accounts.js';
import {
  changeMemberRole,
  invitedEmail,
  inviteMember,
  MemberRuleError,
  removeMember,
  revokeInvitation,
  transferOwnership,
} from '../../commands/members.js';
import { ACCOUNT_ID, isEmail, roles, type UserRecord } from '../../domain/accounts.js';
import { type GrantableRole, grantableRoles, type InvitationRecord, invitationState, memberChangeProblem } from '../../domain/members.js';
import { can, permissionNames, permissions } from '../../domain/permissions.js';
import { noticeOf, sendPage, viewerOf } from '../context.js';
import { answerOnce, type PageContext, revealed } from '../form-once.js';
import { formValues, oneOf, text } from '../form-values.js';
import { type Html, html } from '../html.js';
import { badge, errorNotice, formTokens, page, shownOnce, type Viewer, when } from '../layout.js';
import { dashboardBase, invitationLink, invitationMail, roleChangedMail, sendIfMailer } from '../member-mail.js';

type MemberRequest = FastifyRequest<{ Params: { id: string } }>;

interface InviteForm {
  email: string;
  role: GrantableRole;
}

/** A member as the list shows them. */
interface MemberRow {
  user: UserRecord;
  email: string;
  twoFactor: boolean;
}

const accountContext = (context: PageContext): AccountContext => ({ accounts: context.accounts, dataKeys: context.envs.test.dataKeys });

/** The members table's columns, in order. */
const memberColumns: { heading: string; cell: (row: MemberRow, viewer: Viewer & { id: string }) => Html | string }[] = [
  {
    heading: 'E-mail',
    cell: (row, viewer) => html`${row.email}${row.user.id === viewer.id ? html` <span class="hint">(you)</span>` : ''}`,
  },
  { heading: 'Role', cell: (row) => badge(row.user.role) },
  { heading: 'Two-factor sign-in', cell: (row) => (row.twoFactor ? 'on' : 'off') },
  { heading: 'Member since', cell: (row) => when(row.user.created_at) },
  {
    heading: 'Actions',
    cell: (row, viewer) =>
      memberChangeProblem(viewer.role, row.user.role) === undefined
        ? html`<a href="/dashboard/members/${row.user.id}">Manage<span class="visually-hidden"> ${row.email}</span></a>`
        : '–',
  },
];

function memberTable(rows: MemberRow[], viewer: Viewer & { id: string }): Html {
  return html`<div class="scroll" tabindex="0"><table>
<caption class="visually-hidden">Members, oldest first</caption>
<thead><tr>${memberColumns.map((column) => html`<th scope="col">${column.heading}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${memberColumns.map((column) => html`<td>${column.cell(row, viewer)}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A pending invitation as the list shows it: whether its link works, with its sender named. */
interface InvitationRow {
  invitation: InvitationRecord;
  email: string;
  by: string;
  state: ReturnType<typeof invitationState>;
}

function invitationTable(invitations: InvitationRow[], viewer: Viewer): Html {
  if (invitations.length === 0) return html`<p>No pending invitations.</p>`;
  const manage = can(viewer.role, 'members');
  const rows = invitations.map(({ invitation, email, by, state }) => {
    const revoke = html`<form method="post" action="/dashboard/members/invitations/${invitation.id}/revoke" class="inline">${formTokens(viewer.csrf)}<button type="submit" class="secondary">Revoke<span class="visually-hidden"> the invitation for ${email}</span></button></form>`;
    return html`<tr><td>${email}</td><td>${badge(invitation.role)}</td><td>${by}</td><td>${state === 'works' ? when(invitation.expires_at) : state === 'void' ? html`${badge('void')} <span class="hint">its sender may no longer invite</span>` : badge('expired')}</td>${manage ? html`<td>${revoke}</td>` : ''}</tr>`;
  });
  return html`<div class="scroll" tabindex="0"><table>
<caption class="visually-hidden">Pending invitations, oldest first</caption>
<thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Link works until</th>${manage ? html`<th scope="col">Action</th>` : ''}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** The permission table itself, as every role reads it. */
function roleTable(): Html {
  return html`<div class="scroll" tabindex="0"><table>
<caption class="visually-hidden">What each role may do</caption>
<thead><tr><th scope="col">Members who may</th>${roles.map((role) => html`<th scope="col">${role}</th>`)}</tr></thead>
<tbody>${permissionNames.map(
    (permission) =>
      html`<tr><th scope="row">${permissions[permission].does}</th>${roles.map((role) => html`<td>${can(role, permission) ? 'yes' : 'no'}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}

function inviteForm(csrf: string, form: InviteForm): Html {
  return html`<h2 id="invite">Invite a member</h2>
<form method="post" action="/dashboard/members">
${formTokens(csrf)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" maxlength="254" required value="${form.email}">
<fieldset><legend>Role</legend>
${grantableRoles.map((role) => html`<label><input type="radio" name="role" value="${role}"${role === form.role ? html` checked` : ''}> ${role}</label>`)}
<p class="hint">The owner's role passes only by a transfer of ownership, from a member's page.</p>
</fieldset>
<div class="actions"><button type="submit">Send invitation</button></div>
</form>`;
}

export function registerMemberPages(scope: FastifyInstance, context: PageContext): void {
  scope.get('/members', async (request, reply) =>
    membersPage(context, request, reply, html`${noticeOf(request)}${await revealed(context.forms, request)}`),
  );
  scope.post('/members', (request, reply) => invite(context, request, reply));
  scope.post<{ Params: { id: string } }>('/members/invitations/:id/revoke', (request, reply) => revoke(context, request, reply));
  scope.get<{ Params: { id: string } }>('/members/:id', async (request, reply) =>
    memberPage(context, request, reply, html`${noticeOf(request)}${await revealed(context.forms, request)}`),
  );
  scope.post<{ Params: { id: string } }>('/members/:id/role', (request, reply) => changeRole(context, request, reply));
  scope.post<{ Params: { id: string } }>('/members/:id/remove', (request, reply) => remove(context, request, reply));
  scope.post<{ Params: { id: string } }>('/members/:id/transfer', (request, reply) => transfer(context, request, reply));
}

async function membersPage(
  context: PageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  notice: Html | string,
  form: InviteForm = { email: '', role: 'developer' },
  status = 200,
) {
  const viewer = { ...(await viewerOf(context, request, reply)), id: request.signedIn!.user.id };
  const accounts = accountContext(context);
  const users = await context.accounts.users();
  const withTwoFactor = new Set(await context.accounts.twoFactor.enabledUserIds());
  const rows = await Promise.all(
    users.map(async (user) => ({ user, email: await emailOf(accounts, user), twoFactor: withTwoFactor.has(user.id) })),
  );
  const emailOfId = (id: string) => rows.find((row) => row.user.id === id)?.email ?? 'a former member';
  const invitations = await Promise.all(
    (await context.accounts.members.invitations(ACCOUNT_ID)).map(async (invitation) => ({
      invitation,
      email: await invitedEmail(accounts, invitation),
      by: emailOfId(invitation.invited_by),
      state: invitationState(invitation, users.find((user) => user.id === invitation.invited_by)?.role, context.clock()),
    })),
  );
  const manage = can(viewer.role, 'members');
  const body = html`${notice}
<p>The people who sign in to this account's dashboard, and their roles. ${manage ? '' : 'Owners and admins invite members and change their roles.'}</p>
${memberTable(rows, viewer)}
<h2>Pending invitations</h2>
${invitationTable(invitations, viewer)}
${manage ? inviteForm(viewer.csrf, form) : ''}
<h2>What each role may do</h2>
${roleTable()}`;
  return sendPage(reply, page('Members', body, viewer, 'Members'), status);
}

async function invite(context: PageContext, request: FastifyRequest, reply: FastifyReply) {
  const form = formValues({ email: text, role: oneOf(grantableRoles) }, request.body);
  const email = form.email.trim();
  if (!isEmail(email))
    return membersPage(context, request, reply, errorNotice('An e-mail address is name@domain.tld, without spaces.'), form, 422);
  try {
    return await answerOnce(context.forms, request, reply, async () => {
      const actor = request.signedIn!.user;
      const { invitation, token } = await inviteMember(accountContext(context), actor, email, form.role, context.clock());
      const link = invitationLink(dashboardBase(context, request), token);
      const inviter = await emailOf(accountContext(context), actor);
      const mailed = await sendIfMailer(context.mailer, invitationMail(email, link, form.role, when(invitation.expires_at), inviter));
      const reveal = mailed
        ? html`<div class="notice success" role="status"><p>Invitation sent to ${email}, as ${form.role}: the link in it works once, until ${when(invitation.expires_at)}.</p></div>`
        : shownOnce(
            'invitation-link',
            `Invitation for ${email}, as ${form.role}${context.mailer === undefined ? '' : ' (the mail could not be sent)'}: send them this link yourself. It works once, until ${when(invitation.expires_at)}.`,
            link,
          );
      return { location: '/dashboard/members', reveal };
    });
  } catch (error) {
    if (error instanceof MemberRuleError)
      return membersPage(context, request, reply, errorNotice(error.message), form, error.kind === 'forbidden' ? 403 : 409);
    throw error;
  }
}

function revoke(context: PageContext, request: MemberRequest, reply: FastifyReply) {
  formValues({}, request.body);
  return answerOnce(context.forms, request, reply, async () => {
    await revokeInvitation(accountContext(context), request.signedIn!.user, request.params.id, context.clock());
    return { location: '/dashboard/members?done=revoked_invitation' };
  });
}

/** One member, with the forms that change them: their role, a transfer of ownership (an owner's), their removal. */
async function memberPage(context: PageContext, request: MemberRequest, reply: FastifyReply, notice: Html | string, status = 200) {
  const viewer = await viewerOf(context, request, reply);
  const member = await context.accounts.user(request.params.id);
  if (member === undefined) {
    const gone = html`<div class="notice error" role="alert"><p>There is no member ${request.params.id}.</p></div><p><a href="/dashboard/members">Back to the members</a></p>`;
    return sendPage(reply, page('Member', gone, viewer, 'Members'), 404);
  }
  const email = await emailOf(accountContext(context), member);
  const problem = memberChangeProblem(viewer.role, member.role);
  if (problem !== undefined) {
    const refused = html`<div class="notice error" role="alert"><p>${problem} Nothing was changed.</p></div><p><a href="/dashboard/members">Back to the members</a></p>`;
    return sendPage(reply, page(`Member ${email}`, refused, viewer, 'Members'), 403);
  }
  const self = member.id === request.signedIn!.user.id;
  const body = html`${notice}
<p>${email}${self ? ' (you)' : ''} is ${member.role === 'admin' ? 'an' : 'a'} ${badge(member.role)} of this account since ${when(member.created_at)}.</p>
${memberForms(viewer, member, email, self)}
<p><a href="/dashboard/members">Back to the members</a></p>`;
  return sendPage(reply, page(`Member ${email}`, body, viewer, 'Members'), status);
}

function memberForms(viewer: Viewer, member: UserRecord, email: string, self: boolean): Html {
  const action = (path: string) => `/dashboard/members/${member.id}/${path}`;
  const transfer =
    can(viewer.role, 'ownership') && member.role !== 'owner'
      ? html`<h2>Transfer ownership</h2>
<form method="post" action="${action('transfer')}">
${formTokens(viewer.csrf)}
<p>${email} becomes the owner, and you an admin. The sessions of you both end: you sign in again.</p>
<label><input type="checkbox" name="confirm" value="yes" required> Make ${email} the owner</label>
<div class="actions"><button type="submit" class="danger">Transfer ownership</button></div>
</form>`
      : '';
  return html`<h2>Change the role</h2>
<form method="post" action="${action('role')}">
${formTokens(viewer.csrf)}
<label for="role">New role</label>
<select id="role" name="role">${grantableRoles.map((role) => html`<option value="${role}"${role === member.role ? html` selected` : ''}>${role}</option>`)}</select>
<p class="hint">${self ? 'Your' : 'Their'} sessions end at once: ${self ? 'you sign' : 'they sign'} in again with the new role.</p>
<div class="actions"><button type="submit">Change role</button></div>
</form>
${transfer}
<h2>${self ? 'Leave the account' : 'Remove the member'}</h2>
<form method="post" action="${action('remove')}">
${formTokens(viewer.csrf)}
<p>${self ? 'You' : email} can no longer sign in, and every session ends at once. What ${self ? 'you' : 'they'} did stays in the activity log.</p>
<label><input type="checkbox" name="confirm" value="yes" required> ${self ? 'I leave this account' : html`Remove ${email}`}</label>
<div class="actions"><button type="submit" class="danger">${self ? 'Leave the account' : 'Remove member'}</button></div>
</form>`;
}

/** A member change's form: acted on once; a rule's refusal is shown on the member's page, changing nothing. */
async function memberChange(
  context: PageContext,
  request: MemberRequest,
  reply: FastifyReply,
  act: (actor: UserRecord, now: Date) => Promise<{ location: string; reveal?: Html }>,
) {
  try {
    return await answerOnce(context.forms, request, reply, () => act(request.signedIn!.user, context.clock()));
  } catch (error) {
    if (!(error instanceof MemberRuleError)) throw error;
    return memberPage(context, request, reply, errorNotice(error.message), error.kind === 'forbidden' ? 403 : 409);
  }
}

function changeRole(context: PageContext, request: MemberRequest, reply: FastifyReply) {
  const { role } = formValues({ role: oneOf(grantableRoles) }, request.body);
  return memberChange(context, request, reply, async (actor, now) => {
    const accounts = accountContext(context);
    const changed = await changeMemberRole(accounts, actor, request.params.id, role, now);
    if (changed === undefined) return { location: `/dashboard/members/${request.params.id}` };
    if (changed.member.id === actor.id) return { location: '/dashboard/sign-in?signed_out=1' };
    const email = await emailOf(accounts, changed.member);
    const by = await emailOf(accounts, actor);
    const mailed = await sendIfMailer(context.mailer, roleChangedMail(email, changed.from, role, dashboardBase(context, request), by));
    const notice = `${email} is now ${role === 'admin' ? 'an' : 'a'} ${role}; their sessions have ended.${mailed ? ' They were told by e-mail.' : ''}`;
    return { location: '/dashboard/members', reveal: html`<div class="notice success" role="status"><p>${notice}</p></div>` };
  });
}

function remove(context: PageContext, request: MemberRequest, reply: FastifyReply) {
  formValues({ confirm: oneOf(['yes']) }, request.body);
  return memberChange(context, request, reply, async (actor, now) => {
    const removed = await removeMember(accountContext(context), actor, request.params.id, now);
    return { location: removed.id === actor.id ? '/dashboard/sign-in?signed_out=1' : '/dashboard/members?done=removed' };
  });
}

function transfer(context: PageContext, request: MemberRequest, reply: FastifyReply) {
  formValues({ confirm: oneOf(['yes']) }, request.body);
  return memberChange(context, request, reply, async (actor, now) => {
    await transferOwnership(accountContext(context), actor, request.params.id, now);
    return { location: '/dashboard/sign-in?signed_out=1' };
  });
}
