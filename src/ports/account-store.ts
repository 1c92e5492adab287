import type { ActivityRecord, ApplicationRecord, SessionRecord, UserRecord } from '../domain/accounts.js';
import type { AccountPlanRecord } from '../domain/plans.js';
import type { MemberStore } from './member-store.js';
import type { TwoFactorStore } from './two-factor-store.js';

/**
 * The account's people, their sessions, the production-access application and the activity log: what the
 * dashboard and the operator's `nature users` / `nature applications` share. Beside the API keys (keys.db, or
 * the keys database on MongoDB), since both environments share them.
 */
export interface AccountStore {
  /**
   * Throws, changing nothing, when a user with the same email_index exists. Here and below, `activity` is the entry
   * recording the change, written with it in one write (not at all when the change is refused or changes nothing).
   */
  insertUser(user: UserRecord, activity?: ActivityRecord): Promise<void>;
  user(id: string): Promise<UserRecord | undefined>;
  userByEmailIndex(index: string): Promise<UserRecord | undefined>;
  userBySetupToken(hash: string): Promise<UserRecord | undefined>;
  users(): Promise<UserRecord[]>;
  /**
   * Sets the password and spends any set-up link, ending the user's sessions and sign-ins waiting for a code in the
   * same write; false, changing nothing, when `setupTokenHash` is given and no longer the user's.
   */
  setPassword(userId: string, passwordHash: string, setupTokenHash?: string, activity?: ActivityRecord): Promise<boolean>;
  /** A fresh set-up link for the user (the old one stops working); their sessions end in the same write. */
  setSetupToken(userId: string, hash: string, expiresAt: string, activity?: ActivityRecord): Promise<void>;

  /** Members (v1.1): role changes, removals, ownership and invitations, in the same store as the users they change. */
  readonly members: MemberStore;

  /**
   * Starts a session, with the entry recording the sign-in, in one write. With `spending` (a pending sign-in's id
   * hash), only while that sign-in waits, spending it in the same write: true once, so two requests with the same
   * code cannot both go on to a session; false, writing nothing, after.
   */
  insertSession(session: SessionRecord, activity?: ActivityRecord, spending?: string): Promise<boolean>;
  session(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, at: string): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of the user (a password change, a reset). */
  /** Ends every session of the user but `keep` (when given), and every sign-in of theirs still waiting for its code. */
  deleteSessionsOf(userId: string, keep?: string): Promise<void>;
  /** Drops the sessions idle since before `idleBefore` and those whose absolute end is `now` or earlier. */
  deleteExpiredSessions(idleBefore: string, now: string): Promise<void>;

  /**
   * Records a failed sign-in under each key (an address, a user) and answers how many each has since `since`
   * (inclusive). Failures before `since` may be forgotten then: every caller counts within the same window.
   */
  recordFailure(keys: string[], at: string, since: string): Promise<number[]>;
  failuresSince(keys: string[], since: string): Promise<number[]>;
  /** Takes back what recordFailure recorded at `at` under `keys` (an attempt that turned out right). */
  forgetFailure(keys: string[], at: string): Promise<void>;

  application(accountId: string): Promise<ApplicationRecord | undefined>;
  /** Stores the application as it now stands (a new submission replaces a rejected one). */
  putApplication(application: ApplicationRecord, activity?: ActivityRecord): Promise<void>;
  /** Approves or rejects a pending application; undefined when there is none pending. */
  decideApplication(
    accountId: string,
    decision: { status: 'approved' | 'rejected'; at: string; reason: string | null },
    activity?: ActivityRecord,
  ): Promise<ApplicationRecord | undefined>;

  /** The account's plan as the operator last set it; undefined while never set (domain/plans.ts's default applies). */
  plan(accountId: string): Promise<AccountPlanRecord | undefined>;
  /** Sets the account's plan; false, writing nothing, when it is on that plan with that cap already. */
  setPlan(plan: AccountPlanRecord, activity?: ActivityRecord): Promise<boolean>;
  /** Two-factor sign-in's records, in the same store: their changes and activity entries commit together too. */
  readonly twoFactor: TwoFactorStore;

  appendActivity(entry: ActivityRecord): Promise<void>;
  /** The newest `limit` entries of the account, newest first. */
  activity(accountId: string, limit: number): Promise<ActivityRecord[]>;

  ping(): Promise<void>;
  close(): Promise<void>;
}
