import type { ActivityRecord, ApplicationRecord, SessionRecord, UserRecord } from '../../domain/accounts.js';
import type { AccountPlanRecord } from '../../domain/plans.js';
import type { AccountStore } from '../../ports/account-store.js';
import type { PostgresOptions, PostgresPool, TransactionSql } from './client.js';
import { KEYS_SCHEMA, KEYS_STEPS, KEYS_STORE, recordActivity } from './keys-schema.js';
import { PostgresMembers } from './members.js';
import { migratedPool } from './migrations.js';
import { PostgresTwoFactorStore } from './two-factor-store.js';

/** In `tx`: the user's sessions but `keep`, and their sign-ins waiting for a code. */
async function endSessionsOf(tx: TransactionSql, userId: string, keep = '') {
  await tx`DELETE FROM sessions WHERE user_id = ${userId} AND id_hash <> ${keep}`;
  await tx`DELETE FROM pending_sign_ins WHERE user_id = ${userId}`;
}

/** Rows come back as records: `email_sealed` (json) parsed, the rest text. */
const USER_COLUMNS = 'id, account_id, role, email_sealed, email_index, password_hash, setup_token_hash, setup_expires_at, created_at';

const insertUserRow = (tx: TransactionSql, user: UserRecord) => tx`
  INSERT INTO users (id, account_id, role, email_sealed, email_index, password_hash, setup_token_hash, setup_expires_at, created_at)
  VALUES (${user.id}, ${user.account_id}, ${user.role}, ${JSON.stringify(user.email_sealed)}::text::json, ${user.email_index},
          ${user.password_hash}, ${user.setup_token_hash}, ${user.setup_expires_at}, ${user.created_at})`;

/**
 * The account's records in the keys schema (`nature_keys`), beside the API keys and shared by every replica. A
 * change and the activity entry recording it commit in one transaction; a decision on the application locks its
 * row, so two operators deciding at once cannot both win.
 */
export class PostgresAccountStore implements AccountStore {
  readonly members: PostgresMembers;
  readonly twoFactor: PostgresTwoFactorStore;

  private constructor(private readonly pool: PostgresPool) {
    this.members = new PostgresMembers(pool.sql, insertUserRow);
    this.twoFactor = new PostgresTwoFactorStore(pool.sql);
  }

  static async connect(url: string, schema = KEYS_SCHEMA, options?: PostgresOptions): Promise<PostgresAccountStore> {
    const pool = await migratedPool(url, schema, KEYS_STORE, KEYS_STEPS, options);
    return new PostgresAccountStore(pool);
  }

  private get sql() {
    return this.pool.sql;
  }

  async insertUser(user: UserRecord, activity?: ActivityRecord): Promise<void> {
    await this.sql.begin(async (tx) => {
      await insertUserRow(tx, user);
      await recordActivity(tx, activity);
    });
  }

  async user(id: string) {
    return this.oneUser('id', id);
  }

  async userByEmailIndex(index: string) {
    return this.oneUser('email_index', index);
  }

  async userBySetupToken(hash: string) {
    return this.oneUser('setup_token_hash', hash);
  }

  async users() {
    return [...(await this.sql.unsafe<UserRecord[]>(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`))];
  }

  async setPassword(userId: string, hash: string, setupTokenHash?: string, activity?: ActivityRecord): Promise<boolean> {
    return (await this.sql.begin(async (tx) => {
      const set = await tx`
        UPDATE users SET password_hash = ${hash}, setup_token_hash = NULL, setup_expires_at = NULL
        WHERE id = ${userId} ${setupTokenHash === undefined ? tx`` : tx`AND setup_token_hash = ${setupTokenHash}`}
        RETURNING 1`;
      if (set.length !== 1) return false;
      await endSessionsOf(tx, userId);
      await recordActivity(tx, activity);
      return true;
    })) as boolean;
  }

  async setSetupToken(userId: string, hash: string, expiresAt: string, activity?: ActivityRecord): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`UPDATE users SET setup_token_hash = ${hash}, setup_expires_at = ${expiresAt} WHERE id = ${userId}`;
      await endSessionsOf(tx, userId);
      await recordActivity(tx, activity);
    });
  }

  async insertSession(session: SessionRecord, activity?: ActivityRecord, spending?: string): Promise<boolean> {
    return (await this.sql.begin(async (tx) => {
      if (spending !== undefined && (await tx`DELETE FROM pending_sign_ins WHERE id_hash = ${spending} RETURNING 1`).length !== 1)
        return false;
      await tx`
        INSERT INTO sessions (id_hash, user_id, created_at, last_seen_at, expires_at)
        VALUES (${session.id_hash}, ${session.user_id}, ${session.created_at}, ${session.last_seen_at}, ${session.expires_at})`;
      await recordActivity(tx, activity);
      return true;
    })) as boolean;
  }

  async session(idHash: string) {
    const [row] = await this.sql<SessionRecord[]>`
      SELECT id_hash, user_id, created_at, last_seen_at, expires_at FROM sessions WHERE id_hash = ${idHash}`;
    return row;
  }

  async touchSession(idHash: string, at: string): Promise<void> {
    await this.sql`UPDATE sessions SET last_seen_at = ${at} WHERE id_hash = ${idHash}`;
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE id_hash = ${idHash}`;
  }

  async deleteSessionsOf(userId: string, keep = ''): Promise<void> {
    await this.sql.begin((tx) => endSessionsOf(tx, userId, keep));
  }

  async deleteExpiredSessions(idleBefore: string, now: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE last_seen_at < ${idleBefore} OR expires_at <= ${now}`;
  }

  async recordFailure(keys: string[], at: string, since: string): Promise<number[]> {
    await this.sql.begin(async (tx) => {
      // Failures older than every window are of no more use: forgetting them keeps the table small.
      await tx`DELETE FROM sign_in_failures WHERE at < ${since}`;
      if (keys.length > 0) await tx`INSERT INTO sign_in_failures (key, at) SELECT k, ${at} FROM unnest(${keys}::text[]) AS k`;
    });
    return this.failuresSince(keys, since);
  }

  async failuresSince(keys: string[], since: string): Promise<number[]> {
    const rows = await this.sql<{ key: string; n: bigint }[]>`
      SELECT key, count(*) AS n FROM sign_in_failures WHERE key = ANY(${keys}::text[]) AND at >= ${since} GROUP BY key`;
    const counts = new Map(rows.map((row) => [row.key, Number(row.n)]));
    return keys.map((key) => counts.get(key) ?? 0);
  }

  async forgetFailure(keys: string[], at: string): Promise<void> {
    await this.sql`DELETE FROM sign_in_failures WHERE key = ANY(${keys}::text[]) AND at = ${at}`;
  }

  async application(accountId: string) {
    const [row] = await this.sql<{ body: ApplicationRecord }[]>`SELECT body FROM applications WHERE account_id = ${accountId}`;
    return row?.body;
  }

  async putApplication(application: ApplicationRecord, activity?: ActivityRecord): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`
        INSERT INTO applications (account_id, body) VALUES (${application.account_id}, ${JSON.stringify(application)}::text::json)
        ON CONFLICT (account_id) DO UPDATE SET body = excluded.body`;
      await recordActivity(tx, activity);
    });
  }

  async decideApplication(
    accountId: string,
    decision: { status: 'approved' | 'rejected'; at: string; reason: string | null },
    activity?: ActivityRecord,
  ): Promise<ApplicationRecord | undefined> {
    return (await this.sql.begin(async (tx) => {
      const [row] = await tx<{ body: ApplicationRecord }[]>`
        SELECT body FROM applications WHERE account_id = ${accountId} FOR UPDATE`;
      if (row?.body.status !== 'pending') return undefined;
      const decided: ApplicationRecord = { ...row.body, status: decision.status, decided_at: decision.at, reason: decision.reason };
      await tx`UPDATE applications SET body = ${JSON.stringify(decided)}::text::json WHERE account_id = ${accountId}`;
      await recordActivity(tx, activity);
      return decided;
    })) as ApplicationRecord | undefined;
  }

  async plan(accountId: string): Promise<AccountPlanRecord | undefined> {
    const [row] = await this.sql<{ body: AccountPlanRecord }[]>`SELECT body FROM plans WHERE account_id = ${accountId}`;
    return row?.body;
  }

  async setPlan(plan: AccountPlanRecord, activity?: ActivityRecord): Promise<boolean> {
    return (await this.sql.begin(async (tx) => {
      // One statement decides whether anything changes, so two operators setting plans at once cannot both skip or both log.
      const set = await tx`
        INSERT INTO plans (account_id, body) VALUES (${plan.account_id}, ${JSON.stringify(plan)}::text::json)
        ON CONFLICT (account_id) DO UPDATE SET body = excluded.body
        WHERE (plans.body->>'plan', plans.body->>'hard_cap') IS DISTINCT FROM (excluded.body->>'plan', excluded.body->>'hard_cap')
        RETURNING 1`;
      if (set.length === 1) await recordActivity(tx, activity);
      return set.length === 1;
    })) as boolean;
  }

  async appendActivity(entry: ActivityRecord): Promise<void> {
    await recordActivity(this.sql, entry);
  }

  async activity(accountId: string, limit: number): Promise<ActivityRecord[]> {
    const rows = await this.sql<{ body: ActivityRecord }[]>`
      SELECT body FROM activity WHERE account_id = ${accountId} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map((row) => row.body);
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  close(): Promise<void> {
    return this.pool.release();
  }

  private async oneUser(column: 'id' | 'email_index' | 'setup_token_hash', value: string): Promise<UserRecord | undefined> {
    const [row] = await this.sql.unsafe<UserRecord[]>(`SELECT ${USER_COLUMNS} FROM users WHERE ${column} = $1`, [value]);
    return row;
  }
}
