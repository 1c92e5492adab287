import type Database from 'better-sqlite3';
import type { ActivityRecord, ApplicationRecord, SessionRecord, UserRecord } from '../../domain/accounts.js';
import type { AccountPlanRecord } from '../../domain/plans.js';
import type { AccountStore } from '../../ports/account-store.js';
import { activityAppender } from './activity-table.js';
import { openDatabase, type Synchronous } from './database.js';
import { KEYS_FILE_STEPS } from './keys-file.js';
import { SqliteMembers } from './members.js';
import { migrate } from './migrations.js';
import { SqliteTwoFactorStore } from './two-factor-store.js';

type UserRow = Omit<UserRecord, 'email_sealed'> & { email_sealed: string };

const toUser = (row: UserRow | undefined): UserRecord | undefined => row && { ...row, email_sealed: JSON.parse(row.email_sealed) };

/**
 * The account's records in keys.db, beside the API keys (a connection of its own). Writes are durable as the
 * keys' are (synchronous=FULL by default): an acknowledged revocation of a session survives a crash.
 */
export class SqliteAccountStore implements AccountStore {
  private readonly db: Database.Database;
  private readonly statements;
  readonly members: SqliteMembers;
  readonly twoFactor: SqliteTwoFactorStore;

  constructor(path: string, synchronous: Synchronous) {
    this.db = openDatabase(path, synchronous);
    migrate(this.db, path, KEYS_FILE_STEPS);
    const db = this.db;
    this.twoFactor = new SqliteTwoFactorStore(db);
    this.statements = {
      insertUser: db.prepare<UserRow>(
        `INSERT INTO users (id, account_id, role, email_sealed, email_index, password_hash, setup_token_hash, setup_expires_at, created_at)
         VALUES (@id, @account_id, @role, @email_sealed, @email_index, @password_hash, @setup_token_hash, @setup_expires_at, @created_at)`,
      ),
      user: db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?'),
      userByIndex: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email_index = ?'),
      userByToken: db.prepare<[string], UserRow>('SELECT * FROM users WHERE setup_token_hash = ?'),
      users: db.prepare<[], UserRow>('SELECT * FROM users ORDER BY id'),
      setPassword: db.prepare<[string, string]>(
        'UPDATE users SET password_hash = ?, setup_token_hash = NULL, setup_expires_at = NULL WHERE id = ?',
      ),
      setPasswordWithToken: db.prepare<[string, string, string]>(
        'UPDATE users SET password_hash = ?, setup_token_hash = NULL, setup_expires_at = NULL WHERE id = ? AND setup_token_hash = ?',
      ),
      setToken: db.prepare<[string, string, string]>('UPDATE users SET setup_token_hash = ?, setup_expires_at = ? WHERE id = ?'),
      insertSession: db.prepare<SessionRecord>(
        'INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, expires_at) VALUES (@id_hash, @user_id, @created_at, @last_seen_at, @expires_at)',
      ),
      session: db.prepare<[string], SessionRecord>('SELECT * FROM sessions WHERE id_hash = ?'),
      touch: db.prepare<[string, string]>('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?'),
      deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE id_hash = ?'),
      deleteSessionsOf: db.prepare<[string, string]>('DELETE FROM sessions WHERE user_id = ? AND id_hash <> ?'),
      deletePendingOf: db.prepare<[string]>('DELETE FROM pending_sign_ins WHERE user_id = ?'),
      spendPending: db.prepare<[string]>('DELETE FROM pending_sign_ins WHERE id_hash = ?'),
      deleteExpired: db.prepare<[string, string]>('DELETE FROM sessions WHERE last_seen_at < ? OR expires_at <= ?'),
      insertFailure: db.prepare<[string, string]>('INSERT INTO sign_in_failures (key, at) VALUES (?, ?)'),
      countFailures: db.prepare<[string, string], number>('SELECT count(*) FROM sign_in_failures WHERE key = ? AND at >= ?').pluck(),
      forgetFailures: db.prepare<[string]>('DELETE FROM sign_in_failures WHERE at < ?'),
      forgetFailure: db.prepare<[string, string]>('DELETE FROM sign_in_failures WHERE key = ? AND at = ?'),
      application: db.prepare<[string], string>('SELECT body FROM applications WHERE account_id = ?').pluck(),
      putApplication: db.prepare<[string, string]>(
        'INSERT INTO applications (account_id, body) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET body = excluded.body',
      ),
      plan: db.prepare<[string], string>('SELECT body FROM plans WHERE account_id = ?').pluck(),
      putPlan: db.prepare<[string, string]>(
        'INSERT INTO plans (account_id, body) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET body = excluded.body',
      ),
      appendActivity: activityAppender(db),
      activity: db.prepare<[string, number], string>('SELECT body FROM activity WHERE account_id = ? ORDER BY id DESC LIMIT ?').pluck(),
    };
    this.members = new SqliteMembers(
      db,
      (user) => this.statements.insertUser.run({ ...user, email_sealed: JSON.stringify(user.email_sealed) }),
      this.statements.appendActivity,
    );
  }

  async insertUser(user: UserRecord, activity?: ActivityRecord): Promise<void> {
    this.inTransaction(() => this.statements.insertUser.run({ ...user, email_sealed: JSON.stringify(user.email_sealed) }), activity);
  }

  async user(id: string) {
    return toUser(this.statements.user.get(id));
  }

  async userByEmailIndex(index: string) {
    return toUser(this.statements.userByIndex.get(index));
  }

  async userBySetupToken(hash: string) {
    return toUser(this.statements.userByToken.get(hash));
  }

  async users() {
    return this.statements.users.all().map((row) => toUser(row)!);
  }

  async setPassword(userId: string, hash: string, setupTokenHash?: string, activity?: ActivityRecord): Promise<boolean> {
    return this.db
      .transaction(() => {
        const result =
          setupTokenHash === undefined
            ? this.statements.setPassword.run(hash, userId)
            : this.statements.setPasswordWithToken.run(hash, userId, setupTokenHash);
        if (result.changes !== 1) return false;
        this.endSessionsOf(userId);
        if (activity) this.statements.appendActivity(activity);
        return true;
      })
      .immediate();
  }

  async setSetupToken(userId: string, hash: string, expiresAt: string, activity?: ActivityRecord): Promise<void> {
    this.inTransaction(() => {
      this.statements.setToken.run(hash, expiresAt, userId);
      this.endSessionsOf(userId);
    }, activity);
  }

  async insertSession(session: SessionRecord, activity?: ActivityRecord, spending?: string): Promise<boolean> {
    return this.db
      .transaction(() => {
        if (spending !== undefined && this.statements.spendPending.run(spending).changes !== 1) return false;
        this.statements.insertSession.run(session);
        if (activity) this.statements.appendActivity(activity);
        return true;
      })
      .immediate();
  }

  async session(idHash: string) {
    return this.statements.session.get(idHash);
  }

  async touchSession(idHash: string, at: string): Promise<void> {
    this.statements.touch.run(at, idHash);
  }

  async deleteSession(idHash: string): Promise<void> {
    this.statements.deleteSession.run(idHash);
  }

  async deleteSessionsOf(userId: string, keep = ''): Promise<void> {
    this.db.transaction(() => this.endSessionsOf(userId, keep))();
  }

  /** In the caller's transaction: the user's sessions but `keep`, and their sign-ins waiting for a code. */
  private endSessionsOf(userId: string, keep = '') {
    this.statements.deleteSessionsOf.run(userId, keep);
    this.statements.deletePendingOf.run(userId);
  }

  async deleteExpiredSessions(idleBefore: string, now: string): Promise<void> {
    this.statements.deleteExpired.run(idleBefore, now);
  }

  async recordFailure(keys: string[], at: string, since: string): Promise<number[]> {
    return this.db
      .transaction(() => {
        // Failures older than every window are of no more use: forgetting them keeps the table small.
        this.statements.forgetFailures.run(since);
        for (const key of keys) this.statements.insertFailure.run(key, at);
        return keys.map((key) => this.statements.countFailures.get(key, since) ?? 0);
      })
      .immediate();
  }

  async failuresSince(keys: string[], since: string): Promise<number[]> {
    return keys.map((key) => this.statements.countFailures.get(key, since) ?? 0);
  }

  async forgetFailure(keys: string[], at: string): Promise<void> {
    for (const key of keys) this.statements.forgetFailure.run(key, at);
  }

  async application(accountId: string): Promise<ApplicationRecord | undefined> {
    const body = this.statements.application.get(accountId);
    return body === undefined ? undefined : JSON.parse(body);
  }

  async putApplication(application: ApplicationRecord, activity?: ActivityRecord): Promise<void> {
    this.inTransaction(() => this.statements.putApplication.run(application.account_id, JSON.stringify(application)), activity);
  }

  async decideApplication(
    accountId: string,
    decision: { status: 'approved' | 'rejected'; at: string; reason: string | null },
    activity?: ActivityRecord,
  ): Promise<ApplicationRecord | undefined> {
    return this.db
      .transaction(() => {
        const body = this.statements.application.get(accountId);
        const current: ApplicationRecord | undefined = body === undefined ? undefined : JSON.parse(body);
        if (current?.status !== 'pending') return undefined;
        const decided: ApplicationRecord = { ...current, status: decision.status, decided_at: decision.at, reason: decision.reason };
        this.statements.putApplication.run(accountId, JSON.stringify(decided));
        if (activity) this.statements.appendActivity(activity);
        return decided;
      })
      .immediate();
  }

  async plan(accountId: string): Promise<AccountPlanRecord | undefined> {
    const body = this.statements.plan.get(accountId);
    return body === undefined ? undefined : JSON.parse(body);
  }

  async setPlan(plan: AccountPlanRecord, activity?: ActivityRecord): Promise<boolean> {
    return this.db
      .transaction(() => {
        const body = this.statements.plan.get(plan.account_id);
        const current: AccountPlanRecord | undefined = body === undefined ? undefined : JSON.parse(body);
        if (current?.plan === plan.plan && current.hard_cap === plan.hard_cap) return false;
        this.statements.putPlan.run(plan.account_id, JSON.stringify(plan));
        if (activity) this.statements.appendActivity(activity);
        return true;
      })
      .immediate();
  }

  /** `change`, and the activity entry recording it, in one transaction. */
  private inTransaction(change: () => unknown, activity: ActivityRecord | undefined): void {
    this.db
      .transaction(() => {
        change();
        if (activity) this.statements.appendActivity(activity);
      })
      .immediate();
  }

  async appendActivity(entry: ActivityRecord): Promise<void> {
    this.statements.appendActivity(entry);
  }

  async activity(accountId: string, limit: number): Promise<ActivityRecord[]> {
    return this.statements.activity.all(accountId, limit).map((body) => JSON.parse(body));
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
