import type { Role } from './accounts.js';
import { newId } from './ids.js';
import { can, rolesWith } from './permissions.js';
import type { PiiEnvelope } from './sealed.js';

/**
 * An invitation to join the account with a role: a single-use link whose token is kept only as a hash, and the
 * invitee's address sealed under the invitation's own data key (destroyed once the invitation is accepted or
 * revoked). It stands until then, expired or not, so the inviter sees what became of it.
 */
export interface InvitationRecord {
  id: string;
  account_id: string;
  role: Role;
  email_sealed: PiiEnvelope;
  /** The keyed hash of the address, as a user's: one pending invitation per address, and none for a member's. */
  email_index: string;
  token_hash: string;
  expires_at: string;
  /** The member who sent it. */
  invited_by: string;
  created_at: string;
}

/** How long an invitation's link works. */
export const INVITATION_MS = 72 * 3600 * 1000;

export const newInvitationId = () => newId('inv');

/**
 * Whether an invitation's link still works: until it expires, and only while the member who sent it may still
 * invite. An invitation speaks for its sender, so one sent by a member since removed, or whose role no longer
 * invites, is void (else a member about to be removed could invite themselves back).
 */
export function invitationState(invitation: InvitationRecord, inviter: Role | undefined, now: Date): 'works' | 'expired' | 'void' {
  if (inviter === undefined || !can(inviter, 'members')) return 'void';
  return Date.parse(invitation.expires_at) > now.getTime() ? 'works' : 'expired';
}

/** The roles an invitation or a role change gives: the owner's passes only by a transfer of ownership. */
export const grantableRoles = ['admin', 'developer', 'viewer'] as const satisfies readonly Role[];
export type GrantableRole = (typeof grantableRoles)[number];

/**
 * What a store's guarded change to a member came to: done; `stale` when the member is gone or no longer has the
 * role the change was decided on (someone changed it meanwhile); `last_owner` when it would leave the account
 * without an owner, which is refused.
 */
export type MemberChange = 'done' | 'stale' | 'last_owner';

/** Why a member with role `actor` may not change or remove one with role `target`; undefined when they may. */
export function memberChangeProblem(actor: Role, target: Role): string | undefined {
  if (!can(actor, 'members')) return `Changing members is for ${rolesWith('members')}.`;
  if (target === 'owner' && !can(actor, 'ownership')) return `Only ${rolesWith('ownership')} change or remove an owner.`;
  return undefined;
}

/**
 * The guard every store applies in the write that changes a member from role `from` to `to` (undefined: removed),
 * given the role they have now (undefined: gone) and how many owners the account has now.
 */
export function guardMemberChange(current: Role | undefined, from: Role, to: Role | undefined, owners: number): MemberChange {
  if (current !== from) return 'stale';
  if (current === 'owner' && to !== 'owner' && owners <= 1) return 'last_owner';
  return 'done';
}
