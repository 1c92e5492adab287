import type { ClientSession, Collection, Db } from 'mongodb';
import type { ActivityRecord, Role, UserRecord } from '../../domain/accounts.js';
import { guardMemberChange, type InvitationRecord, type MemberChange } from '../../domain/members.js';
import type { MemberStore } from '../../ports/member-store.js';
import { type ActivityDocument, atomically, recordActivity } from './activity.js';
import type { MongoConnection } from './client.js';

type UserDocument = Omit<UserRecord, 'id'> & { _id: string };
type InvitationDocument = Omit<InvitationRecord, 'id'> & { _id: string };

const fromInvitation = (document: InvitationDocument | null): InvitationRecord | undefined => {
  if (document === null) return undefined;
  const { _id, ...rest } = document;
  return { id: _id, ...rest };
};

/**
 * The account store's member changes and invitations in the keys database (AccountStore.members). Every
 * member change also writes one counter document of the account, so two changes in concurrent transactions conflict
 * and the driver runs the later one again, seeing the first's outcome: two owners demoting each other cannot both
 * pass the last-owner guard. (On a standalone server without transactions the guard is read, then written.)
 */
export class MongoMembers implements MemberStore {
  private readonly invitations_: Collection<InvitationDocument>;
  private readonly changes: Collection<{ _id: string; count: number }>;

  private constructor(
    private readonly connection: MongoConnection,
    private readonly users: Collection<UserDocument>,
    private readonly sessions: Collection<{ _id: string; user_id: string }>,
    private readonly activity: Collection<ActivityDocument>,
    private readonly db: Db,
  ) {
    this.invitations_ = db.collection('invitations');
    this.changes = db.collection('member_changes');
  }

  /** With the invitations' indexes made (idempotent). */
  static async open(connection: MongoConnection, db: Db, activity: Collection<ActivityDocument>): Promise<MongoMembers> {
    const members = new MongoMembers(connection, db.collection('users'), db.collection('sessions'), activity, db);
    await members.invitations_.createIndex({ email_index: 1 }, { unique: true });
    await members.invitations_.createIndex({ token_hash: 1 }, { unique: true });
    await members.invitations_.createIndex({ account_id: 1, _id: 1 });
    return members;
  }

  private async guarded(
    userId: string,
    from: Role,
    to: Role | undefined,
    write: (session: ClientSession | undefined) => Promise<void>,
  ): Promise<MemberChange> {
    let outcome: MemberChange = 'stale';
    await atomically(this.connection, async (session) => {
      outcome = 'stale';
      const current = await this.users.findOne({ _id: userId }, { session });
      if (current === null) return;
      await this.changes.updateOne({ _id: current.account_id }, { $inc: { count: 1 } }, { upsert: true, session });
      const owners = await this.users.countDocuments({ account_id: current.account_id, role: 'owner' }, { session });
      outcome = guardMemberChange(current.role, from, to, owners);
      if (outcome === 'done') await write(session);
    });
    return outcome;
  }

  changeRole(userId: string, from: Role, to: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.guarded(userId, from, to, async (session) => {
      await this.users.updateOne({ _id: userId }, { $set: { role: to } }, { session });
      await this.sessions.deleteMany({ user_id: userId }, { session });
      await recordActivity(this.activity, activity, session);
    });
  }

  removeUser(userId: string, from: Role, activity?: ActivityRecord): Promise<MemberChange> {
    return this.guarded(userId, from, undefined, async (session) => {
      await this.users.deleteOne({ _id: userId }, { session });
      await this.sessions.deleteMany({ user_id: userId }, { session });
      // A removed member's sealed TOTP secret and recovery-code hashes go with them, as does a sign-in half done.
      await this.db.collection('two_factor').deleteOne({ _id: userId as never }, { session });
      await this.db.collection('pending_sign_ins').deleteMany({ user_id: userId }, { session });
      await recordActivity(this.activity, activity, session);
    });
  }

  async transferOwnership(
    ownerId: string,
    memberId: string,
    memberRole: Role,
    activity: ActivityRecord | undefined,
  ): Promise<MemberChange> {
    let outcome: MemberChange = 'stale';
    await atomically(this.connection, async (session) => {
      outcome = 'stale';
      const owner = await this.users.findOne({ _id: ownerId }, { session });
      const member = await this.users.findOne({ _id: memberId }, { session });
      if (ownerId === memberId || owner?.role !== 'owner' || member?.role !== memberRole || member.account_id !== owner.account_id) return;
      await this.changes.updateOne({ _id: owner.account_id }, { $inc: { count: 1 } }, { upsert: true, session });
      await this.users.updateOne({ _id: ownerId, role: 'owner' }, { $set: { role: 'admin' } }, { session });
      await this.users.updateOne({ _id: memberId }, { $set: { role: 'owner' } }, { session });
      await this.sessions.deleteMany({ user_id: { $in: [ownerId, memberId] } }, { session });
      await recordActivity(this.activity, activity, session);
      outcome = 'done';
    });
    return outcome;
  }

  async insertInvitation({ id, ...rest }: InvitationRecord, activity?: ActivityRecord): Promise<void> {
    await atomically(this.connection, async (session) => {
      await this.invitations_.insertOne({ _id: id, ...rest }, { session });
      await recordActivity(this.activity, activity, session);
    });
  }

  async invitations(accountId: string): Promise<InvitationRecord[]> {
    return (await this.invitations_.find({ account_id: accountId }).sort({ _id: 1 }).toArray()).map((each) => fromInvitation(each)!);
  }

  async invitation(id: string): Promise<InvitationRecord | undefined> {
    return fromInvitation(await this.invitations_.findOne({ _id: id }));
  }

  async invitationByToken(hash: string): Promise<InvitationRecord | undefined> {
    return fromInvitation(await this.invitations_.findOne({ token_hash: hash }));
  }

  async deleteInvitation(id: string, activity?: ActivityRecord): Promise<boolean> {
    let deleted = false;
    await atomically(this.connection, async (session) => {
      deleted = (await this.invitations_.deleteOne({ _id: id }, { session })).deletedCount === 1;
      if (deleted) await recordActivity(this.activity, activity, session);
    });
    return deleted;
  }

  async acceptInvitation(
    tokenHash: string,
    now: string,
    { id, ...user }: UserRecord,
    activity: ActivityRecord | undefined,
  ): Promise<boolean> {
    let spent = false;
    await atomically(this.connection, async (session) => {
      spent = (await this.invitations_.deleteOne({ token_hash: tokenHash, expires_at: { $gt: now } }, { session })).deletedCount === 1;
      if (!spent) return;
      await this.users.insertOne({ _id: id, ...user }, { session });
      await recordActivity(this.activity, activity, session);
    });
    return spent;
  }
}
