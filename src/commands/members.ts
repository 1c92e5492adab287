import {
  ACCOUNT_ID,
  type Actor,
  activity,
  newToken,
  newUserId,
  normaliseEmail,
  passwordHash,
  type Role,
  tokenHash,
  type UserRecord,
} from '../domain/accounts.js';
import { DomainError } from '../domain/errors.js';
import {
  type GrantableRole,
  INVITATION_MS,
  type InvitationRecord,
  invitationState,
  type MemberChange,
  memberChangeProblem,
  newInvitationId,
} from '../domain/members.js';
import { can, rolesWith } from '../domain/permissions.js';
import { open, seal } from '../privacy/pii-envelope.js';
import { type AccountContext, EMAIL_FIELD, emailIndex, emailOf } from './accounts.js';

/**
 * A member change the rules refuse, in words for the person who asked: `forbidden` when their role may not make
 * it, `conflict` when the account as it stands does not allow it (the last owner, a member changed meanwhile).
 */
export class MemberRuleError extends Error {
  override readonly name = 'MemberRuleError';
  constructor(
    readonly kind: 'forbidden' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

const asActor = (member: UserRecord): Actor => ({ type: 'user', user_id: member.id });

const outcomeProblems: Record<Exclude<MemberChange, 'done'>, string> = {
  stale: 'This member changed meanwhile, so nothing was changed: reload the page to see how they stand.',
  last_owner: "The account's last owner keeps the owner role: transfer ownership to another member first.",
};

function settled(outcome: MemberChange): void {
  if (outcome !== 'done') throw new MemberRuleError('conflict', outcomeProblems[outcome]);
}

function requirePermission(actor: UserRecord, permission: 'members' | 'ownership'): void {
  if (!can(actor.role, permission)) throw new MemberRuleError('forbidden', `That is for ${rolesWith(permission)}.`);
}

/** The member `id`, whom `actor` may change or remove. */
async function changeableMember(context: AccountContext, actor: UserRecord, id: string): Promise<UserRecord> {
  const member = await context.accounts.user(id);
  if (member === undefined || member.account_id !== actor.account_id) throw new DomainError('not_found', `There is no member ${id}.`);
  const problem = memberChangeProblem(actor.role, member.role);
  if (problem !== undefined) throw new MemberRuleError('forbidden', problem);
  return member;
}

/**
 * An invitation for `email` to join with `role`: its link's token is returned once and kept only as a hash; the
 * address is sealed under the invitation's own data key. Refused for a member's address or one already invited.
 */
export async function inviteMember(
  context: AccountContext,
  actor: UserRecord,
  email: string,
  role: GrantableRole,
  now: Date,
): Promise<{ invitation: InvitationRecord; token: string }> {
  requirePermission(actor, 'members');
  const index = await emailIndex(context, email);
  const invitedAlready = async () => (await context.accounts.members.invitations(ACCOUNT_ID)).some((each) => each.email_index === index);
  if ((await context.accounts.userByEmailIndex(index)) !== undefined)
    throw new MemberRuleError('conflict', `${normaliseEmail(email)} is a member already.`);
  const standing = new MemberRuleError('conflict', `An invitation for ${normaliseEmail(email)} stands already: revoke it to invite again.`);
  if (await invitedAlready()) throw standing;
  const id = newInvitationId();
  const token = newToken();
  const invitation: InvitationRecord = {
    id,
    account_id: ACCOUNT_ID,
    role,
    email_sealed: seal(await context.dataKeys.keyFor(id), normaliseEmail(email), id, EMAIL_FIELD),
    email_index: index,
    token_hash: tokenHash(token),
    expires_at: new Date(now.getTime() + INVITATION_MS).toISOString(),
    invited_by: actor.id,
    created_at: now.toISOString(),
  };
  try {
    await context.accounts.members.insertInvitation(invitation, activity(asActor(actor), 'invitation.created', id, role, now));
  } catch (error) {
    // The same address invited from two tabs at once: the store's unique index let one through.
    if (await invitedAlready()) throw standing;
    throw error;
  }
  return { invitation, token };
}

/** The address an invitation was sent to; '(erased)' once its key is gone. */
export async function invitedEmail(context: AccountContext, invitation: InvitationRecord): Promise<string> {
  const key = await context.dataKeys.find(invitation.id);
  return key === undefined ? '(erased)' : (open(key, invitation.email_sealed, invitation.id, EMAIL_FIELD) as string);
}

/** Revokes a standing invitation: its link stops working and the address it kept is shredded. */
export async function revokeInvitation(context: AccountContext, actor: UserRecord, id: string, now: Date): Promise<void> {
  requirePermission(actor, 'members');
  const invitation = await context.accounts.members.invitation(id);
  const entry = invitation && activity(asActor(actor), 'invitation.revoked', id, invitation.role, now);
  if (entry === undefined || !(await context.accounts.members.deleteInvitation(id, entry)))
    throw new DomainError('not_found', `There is no standing invitation ${id}: it was accepted or revoked already.`);
  await context.dataKeys.destroy(id, now.toISOString());
}

/** The invitation a link's token names while it works (domain/members.ts, invitationState). */
export async function workingInvitation(context: AccountContext, token: string, now: Date): Promise<InvitationRecord | undefined> {
  if (token === '' || token.length > 100) return undefined;
  const invitation = await context.accounts.members.invitationByToken(tokenHash(token));
  if (invitation === undefined) return undefined;
  const inviter = await context.accounts.user(invitation.invited_by);
  return invitationState(invitation, inviter?.role, now) === 'works' ? invitation : undefined;
}

/**
 * Accepts an invitation with the password the invitee chose (already checked): the member is made with the
 * invitation's role, and the invitation spent, in one write. Undefined when the link no longer works.
 */
export async function acceptInvitation(
  context: AccountContext,
  token: string,
  password: string,
  now: Date,
): Promise<UserRecord | undefined> {
  const invitation = await workingInvitation(context, token, now);
  if (invitation === undefined) return undefined;
  const email = await invitedEmail(context, invitation);
  const id = newUserId();
  const member: UserRecord = {
    id,
    account_id: invitation.account_id,
    role: invitation.role,
    email_sealed: seal(await context.dataKeys.keyFor(id), email, id, EMAIL_FIELD),
    email_index: invitation.email_index,
    password_hash: await passwordHash(password),
    setup_token_hash: null,
    setup_expires_at: null,
    created_at: now.toISOString(),
  };
  const joined = activity(asActor(member), 'invitation.accepted', id, `${invitation.id}, as ${invitation.role}`, now);
  const accepted = await context.accounts.members
    .acceptInvitation(tokenHash(token), now.toISOString(), member, joined)
    .catch(async (error) => {
      if ((await context.accounts.userByEmailIndex(invitation.email_index)) !== undefined)
        throw new MemberRuleError('conflict', `${email} is a member already: sign in instead.`);
      throw error;
    });
  // Whichever key is no longer needed is shredded: the invitation's once spent, the unused member's otherwise.
  await context.dataKeys.destroy(accepted ? invitation.id : id, now.toISOString());
  return accepted ? member : undefined;
}

/** Gives a member another role; their sessions end. Undefined when they had it already (nothing changes). */
export async function changeMemberRole(
  context: AccountContext,
  actor: UserRecord,
  id: string,
  role: GrantableRole,
  now: Date,
): Promise<{ member: UserRecord; from: Role } | undefined> {
  const member = await changeableMember(context, actor, id);
  if (member.role === role) return undefined;
  const entry = activity(asActor(actor), 'member.role_changed', id, `${member.role} → ${role}`, now);
  settled(await context.accounts.members.changeRole(id, member.role, role, entry));
  return { member: { ...member, role }, from: member.role };
}

/** Removes a member: their sessions end at once and their address is shredded. The last owner cannot leave. */
export async function removeMember(context: AccountContext, actor: UserRecord, id: string, now: Date): Promise<UserRecord> {
  const member = await changeableMember(context, actor, id);
  settled(await context.accounts.members.removeUser(id, member.role, activity(asActor(actor), 'member.removed', id, member.role, now)));
  await context.dataKeys.destroy(id, now.toISOString());
  return member;
}

/** The owner hands ownership to another member and becomes an admin; the sessions of both end. */
export async function transferOwnership(context: AccountContext, actor: UserRecord, id: string, now: Date): Promise<UserRecord> {
  requirePermission(actor, 'ownership');
  const member = await changeableMember(context, actor, id);
  if (member.role === 'owner') throw new MemberRuleError('conflict', `${await emailOf(context, member)} is an owner already.`);
  const entry = activity(asActor(actor), 'account.ownership_transferred', id, `from ${actor.id}; ${member.role} → owner`, now);
  settled(await context.accounts.members.transferOwnership(actor.id, id, member.role, entry));
  return { ...member, role: 'owner' };
}
