import type { ActivityRecord, Role, UserRecord } from '../domain/accounts.js';
import type { InvitationRecord, MemberChange } from '../domain/members.js';

/**
 * The account's members (specification v1.1): AccountStore.members, on the account store's own connection, so a
 * change, the sessions it ends and its activity entry commit together.
 */
export interface MemberStore {
  /**
   * Each change below is guarded in its write: it is made only while the user still has role `from`
   * (else 'stale'), never leaves the account without an owner (else 'last_owner'), and ends every session of each
   * member whose role it changes or who it removes; a removed member's two-factor enrolment and pending sign-ins go
   * with them.
   */
  changeRole(userId: string, from: Role, to: Role, activity?: ActivityRecord): Promise<MemberChange>;
  removeUser(userId: string, from: Role, activity?: ActivityRecord): Promise<MemberChange>;
  /** The owner `ownerId` becomes an admin and `memberId` (while their role is `memberRole`) the owner, in one write. */
  transferOwnership(ownerId: string, memberId: string, memberRole: Role, activity?: ActivityRecord): Promise<MemberChange>;

  /** Throws, changing nothing, when an invitation with the same email_index stands. */
  insertInvitation(invitation: InvitationRecord, activity?: ActivityRecord): Promise<void>;
  /** The account's standing invitations (expired ones too), oldest first. */
  invitations(accountId: string): Promise<InvitationRecord[]>;
  invitation(id: string): Promise<InvitationRecord | undefined>;
  invitationByToken(hash: string): Promise<InvitationRecord | undefined>;
  /** Revokes a standing invitation; false when there is none with this id. */
  deleteInvitation(id: string, activity?: ActivityRecord): Promise<boolean>;
  /**
   * Spends the invitation with this token hash while it works (expires after `now`) and inserts `user`, in one write;
   * false, writing nothing, when it is spent, revoked or expired. Throws, changing nothing, when a user has the email_index.
   */
  acceptInvitation(tokenHash: string, now: string, user: UserRecord, activity?: ActivityRecord): Promise<boolean>;
}
