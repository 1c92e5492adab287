import type { ClientSession, Collection, Db } from 'mongodb';
import type { ActivityRecord } from '../../domain/accounts.js';
import type { PendingSignInRecord, TwoFactorRecord } from '../../domain/two-factor.js';
import type { TwoFactorStore } from '../../ports/two-factor-store.js';
import { type ActivityDocument, atomically, recordActivity } from './activity.js';
import type { MongoConnection } from './client.js';

type TwoFactorDocument = Omit<TwoFactorRecord, 'user_id'> & { _id: string };
type RequirementDocument = { _id: string; required: boolean };
type PendingDocument = Omit<PendingSignInRecord, 'id_hash'> & { _id: string };

const fromTwoFactor = (document: TwoFactorDocument | null): TwoFactorRecord | undefined => {
  if (document === null) return undefined;
  const { _id, ...rest } = document;
  return { user_id: _id, ...rest };
};

const DUPLICATE_KEY = 11000;

/**
 * Two-factor sign-in's records in the keys database, on the account store's connection. Each check that must hold
 * once is one conditional update or delete (a filter that says it), so two requests at once cannot both pass.
 */
export class MongoTwoFactorStore implements TwoFactorStore {
  private readonly enrolments: Collection<TwoFactorDocument>;
  private readonly requirements: Collection<RequirementDocument>;
  private readonly pendings: Collection<PendingDocument>;

  constructor(
    private readonly connection: MongoConnection,
    db: Db,
    private readonly activity: Collection<ActivityDocument>,
  ) {
    this.enrolments = db.collection('two_factor');
    this.requirements = db.collection('two_factor_requirements');
    this.pendings = db.collection('pending_sign_ins');
  }

  /** The index the dropping of ended pending sign-ins reads (idempotent). */
  async createIndexes(): Promise<void> {
    await this.pendings.createIndex({ expires_at: 1 });
  }

  async get(userId: string) {
    return fromTwoFactor(await this.enrolments.findOne({ _id: userId }));
  }

  async enabledUserIds() {
    const documents = await this.enrolments
      .find({ enabled_at: { $ne: null } }, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .toArray();
    return documents.map((document) => document._id);
  }

  async begin({ user_id, ...rest }: TwoFactorRecord): Promise<TwoFactorRecord> {
    try {
      await this.enrolments.updateOne({ _id: user_id }, { $setOnInsert: rest }, { upsert: true });
    } catch (error) {
      // Two upserts at once: the other made it, and that one stands.
      if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
    }
    return (await this.get(user_id))!;
  }

  enable(userId: string, step: number, hashes: string[], at: string, activity?: ActivityRecord) {
    return this.changed(async (session) => {
      const { matchedCount } = await this.enrolments.updateOne(
        { _id: userId, enabled_at: null },
        { $set: { enabled_at: at, last_step: step, recovery_code_hashes: hashes } },
        { session },
      );
      return matchedCount;
    }, activity);
  }

  async acceptStep(userId: string, step: number) {
    const accepted = await this.enrolments.updateOne(
      { _id: userId, enabled_at: { $ne: null }, $or: [{ last_step: null }, { last_step: { $lt: step } }] },
      { $set: { last_step: step } },
    );
    return accepted.matchedCount === 1;
  }

  spendRecoveryCode(userId: string, hash: string, activity?: ActivityRecord) {
    return this.changed(async (session) => {
      const { matchedCount } = await this.enrolments.updateOne(
        { _id: userId, enabled_at: { $ne: null }, recovery_code_hashes: hash },
        { $pull: { recovery_code_hashes: hash } },
        { session },
      );
      return matchedCount;
    }, activity);
  }

  replaceRecoveryCodes(userId: string, hashes: string[], activity?: ActivityRecord) {
    return this.changed(async (session) => {
      const filter = { _id: userId, enabled_at: { $ne: null } };
      return (await this.enrolments.updateOne(filter, { $set: { recovery_code_hashes: hashes } }, { session })).matchedCount;
    }, activity);
  }

  disable(userId: string, activity?: ActivityRecord) {
    return this.changed(async (session) => (await this.enrolments.deleteOne({ _id: userId }, { session })).deletedCount, activity);
  }

  async required(accountId: string) {
    return (await this.requirements.findOne({ _id: accountId }))?.required ?? false;
  }

  setRequired(accountId: string, required: boolean, activity?: ActivityRecord) {
    return this.changed(async (session) => {
      const current = (await this.requirements.findOne({ _id: accountId }, { session }))?.required ?? false;
      if (current === required) return 0;
      await this.requirements.updateOne({ _id: accountId }, { $set: { required } }, { upsert: true, session });
      return 1;
    }, activity);
  }

  async insertPending({ id_hash, ...rest }: PendingSignInRecord): Promise<void> {
    // Ended ones are of no more use: dropping them at each sign-in keeps the collection small.
    await this.pendings.deleteMany({ expires_at: { $lte: rest.created_at } });
    await this.pendings.insertOne({ _id: id_hash, ...rest });
  }

  async pending(idHash: string) {
    const document = await this.pendings.findOne({ _id: idHash });
    if (document === null) return undefined;
    const { _id, ...rest } = document;
    return { id_hash: _id, ...rest };
  }

  /** Spends a pending sign-in in the caller's transaction (AccountStore.insertSession): true once. */
  async spendPendingIn(idHash: string, session: ClientSession | undefined) {
    return (await this.pendings.deleteOne({ _id: idHash }, { session })).deletedCount === 1;
  }

  /** Drops every sign-in of the user still waiting for its code, in the caller's transaction (their sessions ending). */
  async dropPendingOf(userId: string, session: ClientSession | undefined) {
    await this.pendings.deleteMany({ user_id: userId }, { session });
  }

  /**
   * `change` (answering how many documents its filter, which states the condition, found and changed) and, when it
   * changed one, the entry recording it, in one transaction (activity.ts, atomically).
   */
  private async changed(
    change: (session: ClientSession | undefined) => Promise<number>,
    activity: ActivityRecord | undefined,
  ): Promise<boolean> {
    let changed = false;
    await atomically(this.connection, async (session) => {
      changed = (await change(session)) === 1;
      if (changed) await recordActivity(this.activity, activity, session);
    });
    return changed;
  }
}
