import type Database from 'better-sqlite3';
import type { ActivityRecord, Role, UserRecord } from '../../domain/accounts.js';
import { guardMemberChange, type InvitationRecord, type MemberChange } from '../../domain/members.js';
import type { MemberStore } from '../../ports/member-store.js';

type InvitationRow = Omit<InvitationRecord, 'email_sealed'> & { email_sealed: string };

const toInvitation = (row: InvitationRow | undefined): InvitationRecord | undefined =>
  row && { ...row, email_sealed: JSON.parse(row.email_sealed) };

/**
 * The account store's member changes and invitations in keys.db (AccountStore.members). Each change runs
 * in one IMMEDIATE transaction that reads what its guard needs, so two changes at once cannot both pass it.
 */
export class SqliteMembers implements MemberStore {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly insertUser: (user: UserRecord) => void,
    private readonly appendActivity: (entry: ActivityRecord) => void,
  ) {
    this.statements = {
      user: db.prepare<[string], { role: Role; account_id: string }>('SELECT role, account_id FROM users WHERE id = ?'),
      owners: db.prepare<[string], number>("SELECT count(*) FROM users WHERE account_id = ? AND role = 'owner'").pluck(),
      setRole: db.prepare<[string, string]>('UPDATE users SET role = ? WHERE id = ?'),
      deleteUser: db.prepare<[string]>('DELETE FROM users WHERE id = ?'),
      endSessions: db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?'),
      // A removed member's sealed TOTP secret and recovery-code hashes go with them, as does a sign-in half done.
      forgetTwoFactor: db.prepare<[string]>('DELETE FROM two_factor WHERE user_id = ?'),
      forgetPendingSignIns: db.prepare<[string]>('DELETE FROM pending_sign_ins WHERE user_id = ?'),
      insertInvitation: db.prepare<InvitationRow>(
        `INSERT INTO invitations (id, account_id, role, email_sealed, email_index, token_hash, expires_at, invited_by, created_at)
         VALUES (@id, @account_id, @role, @email_sealed, @email_index, @token_hash, @expires_at, @invited_by, @created_at)`,
      ),
      invitations: db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE account_id = ? ORDER BY id'),
      invitation: db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE id = ?'),
      invitationByToken: db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE token_hash = ?'),
      deleteInvitation: db.prepare<[string]>('DELETE FROM invitations WHERE id = ?'),
      spendInvitation: db.prepare<[string, string]>('DELETE FROM invitations WHERE token_hash = ? AND expires_at > ?'),
    };
  }

  private atomically<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** The guard of a change to `userId` from `from` to `to` (undefined: removed), read in the caller's transaction. */
  private guard(userId: string, from: Role, to: Role | undefined): MemberChange {
    const current = this.statements.user.get(userId);
    const owners = current === undefined ? 0 : (this.statements.owners.get(current.account_id) ?? 0);
    return guardMemberChange(current?.role, from, to, owners);
  }

  async changeRole(userId: string, from: Role, to: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.atomically(() => {
      const outcome = this.guard(userId, from, to);
      if (outcome !== 'done') return outcome;
      this.statements.setRole.run(to, userId);
      this.statements.endSessions.run(userId);
      if (activity) this.appendActivity(activity);
      return outcome;
    });
  }

  async removeUser(userId: string, from: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.atomically(() => {
      const outcome = this.guard(userId, from, undefined);
      if (outcome !== 'done') return outcome;
      this.statements.deleteUser.run(userId);
      this.statements.endSessions.run(userId);
      this.statements.forgetTwoFactor.run(userId);
      this.statements.forgetPendingSignIns.run(userId);
      if (activity) this.appendActivity(activity);
      return outcome;
    });
  }

  async transferOwnership(ownerId: string, memberId: string, memberRole: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.atomically(() => {
      const owner = this.statements.user.get(ownerId);
      const member = this.statements.user.get(memberId);
      if (ownerId === memberId || owner?.role !== 'owner' || member?.role !== memberRole || member.account_id !== owner.account_id)
        return 'stale';
      this.statements.setRole.run('admin', ownerId);
      this.statements.setRole.run('owner', memberId);
      this.statements.endSessions.run(ownerId);
      this.statements.endSessions.run(memberId);
      if (activity) this.appendActivity(activity);
      return 'done';
    });
  }

  async insertInvitation(invitation: InvitationRecord, activity?: ActivityRecord): Promise<void> {
    this.atomically(() => {
      this.statements.insertInvitation.run({ ...invitation, email_sealed: JSON.stringify(invitation.email_sealed) });
      if (activity) this.appendActivity(activity);
    });
  }

  async invitations(accountId: string): Promise<InvitationRecord[]> {
    return this.statements.invitations.all(accountId).map((row) => toInvitation(row)!);
  }

  async invitation(id: string): Promise<InvitationRecord | undefined> {
    return toInvitation(this.statements.invitation.get(id));
  }

  async invitationByToken(hash: string): Promise<InvitationRecord | undefined> {
    return toInvitation(this.statements.invitationByToken.get(hash));
  }

  async deleteInvitation(id: string, activity?: ActivityRecord): Promise<boolean> {
    return this.atomically(() => {
      const deleted = this.statements.deleteInvitation.run(id).changes === 1;
      if (deleted && activity) this.appendActivity(activity);
      return deleted;
    });
  }

  async acceptInvitation(tokenHash: string, now: string, user: UserRecord, activity?: ActivityRecord): Promise<boolean> {
    return this.atomically(() => {
      if (this.statements.spendInvitation.run(tokenHash, now).changes !== 1) return false;
      this.insertUser(user);
      if (activity) this.appendActivity(activity);
      return true;
    });
  }
}
