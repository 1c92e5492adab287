import type { ClientSession, Collection } from 'mongodb';
import type { ActivityRecord, ApplicationRecord, SessionRecord, UserRecord } from '../../domain/accounts.js';
import type { AccountPlanRecord } from '../../domain/plans.js';
import type { AccountStore } from '../../ports/account-store.js';
import { type ActivityDocument, atomically, recordActivity } from './activity.js';
import { type MongoConnection, type MongoSettings, withMongo } from './client.js';
import { KEYS_DATABASE } from './key-store.js';
import { MongoMembers } from './members.js';
import { MongoTwoFactorStore } from './two-factor-store.js';

type UserDocument = Omit<UserRecord, 'id'> & { _id: string };
type SessionDocument = Omit<SessionRecord, 'id_hash'> & { _id: string };
type FailureDocument = { key: string; at: string };
type ApplicationDocument = Omit<ApplicationRecord, 'account_id'> & { _id: string };
type PlanDocument = Omit<AccountPlanRecord, 'account_id'> & { _id: string };

const fromUser = (document: UserDocument | null): UserRecord | undefined => {
  if (document === null) return undefined;
  const { _id, ...rest } = document;
  return { id: _id, ...rest };
};
const fromSession = (document: SessionDocument | null): SessionRecord | undefined => {
  if (document === null) return undefined;
  const { _id, ...rest } = document;
  return { id_hash: _id, ...rest };
};
const fromApplication = (document: ApplicationDocument | null): ApplicationRecord | undefined => {
  if (document === null) return undefined;
  const { _id, ...rest } = document;
  return { account_id: _id, ...rest };
};

/**
 * The account's records in the keys database (`nature_keys`), beside the API keys. Writes wait for a majority
 * (client.ts), so an ended session or a decided application is not rolled back by a failover.
 */
export class MongoAccountStore implements AccountStore {
  private constructor(
    private readonly connection: MongoConnection,
    private readonly users_: Collection<UserDocument>,
    private readonly sessions: Collection<SessionDocument>,
    private readonly failures: Collection<FailureDocument>,
    private readonly applications: Collection<ApplicationDocument>,
    private readonly activity_: Collection<ActivityDocument>,
    readonly members: MongoMembers,
    private readonly plans: Collection<PlanDocument>,
    readonly twoFactor: MongoTwoFactorStore,
  ) {}

  /** Connects (the process's one client) and creates the indexes (idempotent). */
  static connect(settings: MongoSettings, database = KEYS_DATABASE): Promise<MongoAccountStore> {
    return withMongo(settings, async (connection) => {
      const db = connection.db(database);
      const users = db.collection<UserDocument>('users');
      await users.createIndex({ email_index: 1 }, { unique: true });
      // Partial: many users have no set-up link, and null would collide in a plain unique index.
      await users.createIndex(
        { setup_token_hash: 1 },
        { unique: true, partialFilterExpression: { setup_token_hash: { $type: 'string' } } },
      );
      const sessions = db.collection<SessionDocument>('sessions');
      await sessions.createIndex({ user_id: 1 });
      const failures = db.collection<FailureDocument>('sign_in_failures');
      await failures.createIndex({ key: 1, at: 1 });
      const activity = db.collection<ActivityDocument>('activity');
      await activity.createIndex({ account_id: 1, _id: -1 });
      const members = await MongoMembers.open(connection, db, activity);
      const twoFactor = new MongoTwoFactorStore(connection, db, activity);
      await twoFactor.createIndexes();
      return new MongoAccountStore(
        connection,
        users,
        sessions,
        failures,
        db.collection('applications'),
        activity,
        members,
        db.collection('plans'),
        twoFactor,
      );
    });
  }

  async insertUser({ id, ...rest }: UserRecord, activity?: ActivityRecord): Promise<void> {
    await atomically(this.connection, async (session) => {
      await this.users_.insertOne({ _id: id, ...rest }, { session });
      await recordActivity(this.activity_, activity, session);
    });
  }

  async user(id: string) {
    return fromUser(await this.users_.findOne({ _id: id }));
  }

  async userByEmailIndex(index: string) {
    return fromUser(await this.users_.findOne({ email_index: index }));
  }

  async userBySetupToken(hash: string) {
    return fromUser(await this.users_.findOne({ setup_token_hash: hash }));
  }

  async users() {
    return (await this.users_.find().sort({ _id: 1 }).toArray()).map((document) => fromUser(document)!);
  }

  async setPassword(userId: string, hash: string, setupTokenHash?: string, activity?: ActivityRecord): Promise<boolean> {
    const filter = setupTokenHash === undefined ? { _id: userId } : { _id: userId, setup_token_hash: setupTokenHash };
    let matched = false;
    await atomically(this.connection, async (session) => {
      const result = await this.users_.updateOne(
        filter,
        { $set: { password_hash: hash, setup_token_hash: null, setup_expires_at: null } },
        { session },
      );
      matched = result.matchedCount === 1;
      if (!matched) return;
      await this.endSessionsOf(userId, '', session);
      await recordActivity(this.activity_, activity, session);
    });
    return matched;
  }

  async setSetupToken(userId: string, hash: string, expiresAt: string, activity?: ActivityRecord): Promise<void> {
    await atomically(this.connection, async (session) => {
      await this.users_.updateOne({ _id: userId }, { $set: { setup_token_hash: hash, setup_expires_at: expiresAt } }, { session });
      await this.endSessionsOf(userId, '', session);
      await recordActivity(this.activity_, activity, session);
    });
  }

  async insertSession({ id_hash, ...rest }: SessionRecord, activity?: ActivityRecord, spending?: string): Promise<boolean> {
    let started = false;
    await atomically(this.connection, async (session) => {
      started = spending === undefined || (await this.twoFactor.spendPendingIn(spending, session));
      if (!started) return;
      await this.sessions.insertOne({ _id: id_hash, ...rest }, { session });
      await recordActivity(this.activity_, activity, session);
    });
    return started;
  }

  async session(idHash: string) {
    return fromSession(await this.sessions.findOne({ _id: idHash }));
  }

  async touchSession(idHash: string, at: string): Promise<void> {
    await this.sessions.updateOne({ _id: idHash }, { $set: { last_seen_at: at } });
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.sessions.deleteOne({ _id: idHash });
  }

  async deleteSessionsOf(userId: string, keep = ''): Promise<void> {
    await atomically(this.connection, (session) => this.endSessionsOf(userId, keep, session));
  }

  /** In the caller's transaction: the user's sessions but `keep`, and their sign-ins waiting for a code. */
  private async endSessionsOf(userId: string, keep: string, session: ClientSession | undefined) {
    await this.sessions.deleteMany({ user_id: userId, _id: { $ne: keep } }, { session });
    await this.twoFactor.dropPendingOf(userId, session);
  }

  async deleteExpiredSessions(idleBefore: string, now: string): Promise<void> {
    await this.sessions.deleteMany({ $or: [{ last_seen_at: { $lt: idleBefore } }, { expires_at: { $lte: now } }] });
  }

  async recordFailure(keys: string[], at: string, since: string): Promise<number[]> {
    await this.failures.deleteMany({ at: { $lt: since } });
    // insertMany refuses an empty batch: a failure under no key records nothing, as in SQLite.
    if (keys.length > 0) await this.failures.insertMany(keys.map((key) => ({ key, at })));
    return this.failuresSince(keys, since);
  }

  async failuresSince(keys: string[], since: string): Promise<number[]> {
    return Promise.all(keys.map((key) => this.failures.countDocuments({ key, at: { $gte: since } })));
  }

  async forgetFailure(keys: string[], at: string): Promise<void> {
    await this.failures.deleteMany({ key: { $in: keys }, at });
  }

  async application(accountId: string) {
    return fromApplication(await this.applications.findOne({ _id: accountId }));
  }

  async putApplication({ account_id, ...rest }: ApplicationRecord, activity?: ActivityRecord): Promise<void> {
    await atomically(this.connection, async (session) => {
      await this.applications.replaceOne({ _id: account_id }, rest, { upsert: true, session });
      await recordActivity(this.activity_, activity, session);
    });
  }

  async decideApplication(
    accountId: string,
    decision: { status: 'approved' | 'rejected'; at: string; reason: string | null },
    activity?: ActivityRecord,
  ) {
    let decided: ApplicationDocument | null = null;
    await atomically(this.connection, async (session) => {
      // One conditional update: two operators deciding at once cannot both win.
      decided = await this.applications.findOneAndUpdate(
        { _id: accountId, status: 'pending' },
        { $set: { status: decision.status, decided_at: decision.at, reason: decision.reason } },
        { returnDocument: 'after', session },
      );
      if (decided !== null) await recordActivity(this.activity_, activity, session);
    });
    return fromApplication(decided);
  }

  async plan(accountId: string): Promise<AccountPlanRecord | undefined> {
    const document = await this.plans.findOne({ _id: accountId });
    if (document === null) return undefined;
    const { _id, ...rest } = document;
    return { account_id: _id, ...rest };
  }

  async setPlan({ account_id, ...rest }: AccountPlanRecord, activity?: ActivityRecord): Promise<boolean> {
    let changed = false;
    try {
      await atomically(this.connection, async (session) => {
        // One conditional upsert decides whether anything changes, so two operators at once cannot both log a change.
        const set = await this.plans.updateOne(
          { _id: account_id, $or: [{ plan: { $ne: rest.plan } }, { hard_cap: { $ne: rest.hard_cap } }] },
          { $set: rest },
          { upsert: true, session },
        );
        changed = set.modifiedCount + set.upsertedCount === 1;
        if (changed) await recordActivity(this.activity_, activity, session);
      });
    } catch (error) {
      // The guarded upsert met the document on that plan already (E11000, DESIGN.md's pitfall): nothing changes.
      if ((error as { code?: unknown }).code === 11000) return false;
      throw error;
    }
    return changed;
  }

  async appendActivity({ id, ...rest }: ActivityRecord): Promise<void> {
    await this.activity_.insertOne({ _id: id, ...rest });
  }

  async activity(accountId: string, limit: number): Promise<ActivityRecord[]> {
    const documents = await this.activity_.find({ account_id: accountId }).sort({ _id: -1 }).limit(limit).toArray();
    return documents.map(({ _id, ...rest }) => ({ id: _id, ...rest }));
  }

  ping(): Promise<void> {
    return this.connection.ping();
  }

  close(): Promise<void> {
    return this.connection.release();
  }
}
