import type { ActivityRecord, Role, UserRecord } from '../../domain/accounts.js';
import { guardMemberChange, type InvitationRecord, type MemberChange } from '../../domain/members.js';
import type { MemberStore } from '../../ports/member-store.js';
import type { Sql, TransactionSql } from './client.js';
import { recordActivity } from './keys-schema.js';

/** The first key of the advisory lock that serialises the schema's member changes (the second: the schema's hash). */
const MEMBERS_LOCK = 0x6e_6d_62_72; // 'nmbr'

const INVITATION_COLUMNS = 'id, account_id, role, email_sealed, email_index, token_hash, expires_at, invited_by, created_at';

/**
 * The account store's member changes and invitations in the keys schema (AccountStore.members). A
 * member change holds a transaction-scoped advisory lock while it reads its guard and writes, so two changes at
 * once (two owners demoting each other) run one after the other and the second sees the first's outcome.
 */
export class PostgresMembers implements MemberStore {
  constructor(
    private readonly sql: Sql,
    private readonly insertUser: (tx: TransactionSql, user: UserRecord) => Promise<unknown>,
  ) {}

  private underLock(work: (tx: TransactionSql) => Promise<MemberChange>): Promise<MemberChange> {
    return this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MEMBERS_LOCK}, hashtext(current_schema()))`;
      return work(tx);
    }) as Promise<MemberChange>;
  }

  private async userOf(tx: TransactionSql, userId: string) {
    const [row] = await tx<{ role: Role; account_id: string }[]>`SELECT role, account_id FROM users WHERE id = ${userId}`;
    return row;
  }

  private async guard(tx: TransactionSql, userId: string, from: Role, to: Role | undefined): Promise<MemberChange> {
    const current = await this.userOf(tx, userId);
    if (current === undefined) return 'stale';
    const [{ owners } = { owners: 0n }] = await tx<{ owners: bigint }[]>`
      SELECT count(*) AS owners FROM users WHERE account_id = ${current.account_id} AND role = 'owner'`;
    return guardMemberChange(current.role, from, to, Number(owners));
  }

  changeRole(userId: string, from: Role, to: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.underLock(async (tx) => {
      const outcome = await this.guard(tx, userId, from, to);
      if (outcome !== 'done') return outcome;
      await tx`UPDATE users SET role = ${to} WHERE id = ${userId}`;
      await tx`DELETE FROM sessions WHERE user_id = ${userId}`;
      await recordActivity(tx, activity);
      return outcome;
    });
  }

  removeUser(userId: string, from: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.underLock(async (tx) => {
      const outcome = await this.guard(tx, userId, from, undefined);
      if (outcome !== 'done') return outcome;
      await tx`DELETE FROM users WHERE id = ${userId}`;
      await tx`DELETE FROM sessions WHERE user_id = ${userId}`;
      // A removed member's sealed TOTP secret and recovery-code hashes go with them, as does a sign-in half done.
      await tx`DELETE FROM two_factor WHERE user_id = ${userId}`;
      await tx`DELETE FROM pending_sign_ins WHERE user_id = ${userId}`;
      await recordActivity(tx, activity);
      return outcome;
    });
  }

  transferOwnership(ownerId: string, memberId: string, memberRole: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.underLock(async (tx) => {
      const owner = await this.userOf(tx, ownerId);
      const member = await this.userOf(tx, memberId);
      if (ownerId === memberId || owner?.role !== 'owner' || member?.role !== memberRole || member.account_id !== owner.account_id)
        return 'stale';
      await tx`UPDATE users SET role = CASE WHEN id = ${ownerId} THEN 'admin' ELSE 'owner' END WHERE id IN (${ownerId}, ${memberId})`;
      await tx`DELETE FROM sessions WHERE user_id IN (${ownerId}, ${memberId})`;
      await recordActivity(tx, activity);
      return 'done';
    });
  }

  async insertInvitation(invitation: InvitationRecord, activity?: ActivityRecord): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`
        INSERT INTO invitations (id, account_id, role, email_sealed, email_index, token_hash, expires_at, invited_by, created_at)
        VALUES (${invitation.id}, ${invitation.account_id}, ${invitation.role}, ${JSON.stringify(invitation.email_sealed)}::text::json,
                ${invitation.email_index}, ${invitation.token_hash}, ${invitation.expires_at}, ${invitation.invited_by}, ${invitation.created_at})`;
      await recordActivity(tx, activity);
    });
  }

  async invitations(accountId: string): Promise<InvitationRecord[]> {
    return [
      ...(await this.sql.unsafe<InvitationRecord[]>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE account_id = $1 ORDER BY id`, [
        accountId,
      ])),
    ];
  }

  invitation(id: string): Promise<InvitationRecord | undefined> {
    return this.oneInvitation('id', id);
  }

  invitationByToken(hash: string): Promise<InvitationRecord | undefined> {
    return this.oneInvitation('token_hash', hash);
  }

  private async oneInvitation(column: 'id' | 'token_hash', value: string): Promise<InvitationRecord | undefined> {
    const [row] = await this.sql.unsafe<InvitationRecord[]>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE ${column} = $1`, [value]);
    return row;
  }

  async deleteInvitation(id: string, activity?: ActivityRecord): Promise<boolean> {
    return (await this.sql.begin(async (tx) => {
      const deleted = await tx`DELETE FROM invitations WHERE id = ${id} RETURNING 1`;
      if (deleted.length === 1) await recordActivity(tx, activity);
      return deleted.length === 1;
    })) as boolean;
  }

  async acceptInvitation(tokenHash: string, now: string, user: UserRecord, activity?: ActivityRecord): Promise<boolean> {
    return (await this.sql.begin(async (tx) => {
      const spent = await tx`DELETE FROM invitations WHERE token_hash = ${tokenHash} AND expires_at > ${now} RETURNING 1`;
      if (spent.length !== 1) return false;
      await this.insertUser(tx, user);
      await recordActivity(tx, activity);
      return true;
    })) as boolean;
  }
}
