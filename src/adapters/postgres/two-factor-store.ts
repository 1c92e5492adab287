import type { ActivityRecord } from '../../domain/accounts.js';
import type { PendingSignInRecord, TwoFactorRecord } from '../../domain/two-factor.js';
import type { TwoFactorStore } from '../../ports/two-factor-store.js';
import type { Sql, TransactionSql } from './client.js';
import { recordActivity } from './keys-schema.js';

const COLUMNS = 'user_id, secret_sealed, created_at, enabled_at, last_step, recovery_code_hashes';

/**
 * Two-factor sign-in's records in the keys schema, on the account store's pool. Each check that must hold once is
 * one UPDATE or DELETE whose WHERE says it: a second request at once waits for the first's row lock, then finds
 * the condition gone (PostgreSQL evaluates it again on the row as committed).
 */
export class PostgresTwoFactorStore implements TwoFactorStore {
  constructor(private readonly sql: Sql) {}

  async get(userId: string) {
    const [row] = await this.sql.unsafe<TwoFactorRecord[]>(`SELECT ${COLUMNS} FROM two_factor WHERE user_id = $1`, [userId]);
    return row;
  }

  async enabledUserIds() {
    const rows = await this.sql<{ user_id: string }[]>`SELECT user_id FROM two_factor WHERE enabled_at IS NOT NULL ORDER BY user_id`;
    return rows.map((row) => row.user_id);
  }

  async begin(record: TwoFactorRecord): Promise<TwoFactorRecord> {
    await this.sql`
      INSERT INTO two_factor (user_id, secret_sealed, created_at, enabled_at, last_step, recovery_code_hashes)
      VALUES (${record.user_id}, ${JSON.stringify(record.secret_sealed)}::text::json, ${record.created_at}, ${record.enabled_at},
              ${record.last_step}, ${record.recovery_code_hashes}::text[])
      ON CONFLICT (user_id) DO NOTHING`;
    // The one that stands: this one, or the one a request before it (or at the same time) began.
    return (await this.get(record.user_id))!;
  }

  enable(userId: string, step: number, hashes: string[], at: string, activity?: ActivityRecord) {
    return this.changed(
      (tx) => tx`
        UPDATE two_factor SET enabled_at = ${at}, last_step = ${step}, recovery_code_hashes = ${hashes}::text[]
        WHERE user_id = ${userId} AND enabled_at IS NULL RETURNING 1`,
      activity,
    );
  }

  async acceptStep(userId: string, step: number) {
    const accepted = await this.sql`
      UPDATE two_factor SET last_step = ${step}
      WHERE user_id = ${userId} AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < ${step}) RETURNING 1`;
    return accepted.length === 1;
  }

  spendRecoveryCode(userId: string, hash: string, activity?: ActivityRecord) {
    return this.changed(
      (tx) => tx`
        UPDATE two_factor SET recovery_code_hashes = array_remove(recovery_code_hashes, ${hash})
        WHERE user_id = ${userId} AND enabled_at IS NOT NULL AND ${hash} = ANY(recovery_code_hashes) RETURNING 1`,
      activity,
    );
  }

  replaceRecoveryCodes(userId: string, hashes: string[], activity?: ActivityRecord) {
    return this.changed(
      (tx) => tx`
        UPDATE two_factor SET recovery_code_hashes = ${hashes}::text[] WHERE user_id = ${userId} AND enabled_at IS NOT NULL RETURNING 1`,
      activity,
    );
  }

  disable(userId: string, activity?: ActivityRecord) {
    return this.changed((tx) => tx`DELETE FROM two_factor WHERE user_id = ${userId} RETURNING 1`, activity);
  }

  async required(accountId: string) {
    const [row] = await this.sql<{ required: boolean }[]>`SELECT required FROM two_factor_requirements WHERE account_id = ${accountId}`;
    return row?.required ?? false;
  }

  setRequired(accountId: string, required: boolean, activity?: ActivityRecord) {
    // Not required is what an account without a row has: turning it off writes only over a row that says it is on.
    return this.changed(
      (tx) =>
        required
          ? tx`
            INSERT INTO two_factor_requirements (account_id, required) VALUES (${accountId}, true)
            ON CONFLICT (account_id) DO UPDATE SET required = true WHERE NOT two_factor_requirements.required RETURNING 1`
          : tx`UPDATE two_factor_requirements SET required = false WHERE account_id = ${accountId} AND required RETURNING 1`,
      activity,
    );
  }

  async insertPending(pending: PendingSignInRecord): Promise<void> {
    await this.sql.begin(async (tx) => {
      // Ended ones are of no more use: dropping them at each sign-in keeps the table small.
      await tx`DELETE FROM pending_sign_ins WHERE expires_at <= ${pending.created_at}`;
      await tx`
        INSERT INTO pending_sign_ins (id_hash, user_id, created_at, expires_at)
        VALUES (${pending.id_hash}, ${pending.user_id}, ${pending.created_at}, ${pending.expires_at})`;
    });
  }

  async pending(idHash: string) {
    const [row] = await this.sql<PendingSignInRecord[]>`
      SELECT id_hash, user_id, created_at, expires_at FROM pending_sign_ins WHERE id_hash = ${idHash}`;
    return row;
  }

  /** `change` (RETURNING a row when it changed one) and, when it did, the entry recording it, in one transaction. */
  private async changed(change: (tx: TransactionSql) => Promise<readonly unknown[]>, activity: ActivityRecord | undefined) {
    return (await this.sql.begin(async (tx) => {
      const changed = (await change(tx)).length === 1;
      if (changed) await recordActivity(tx, activity);
      return changed;
    })) as boolean;
  }
}
