import type Database from 'better-sqlite3';
import type { ActivityRecord } from '../../domain/accounts.js';
import type { PendingSignInRecord, TwoFactorRecord } from '../../domain/two-factor.js';
import type { TwoFactorStore } from '../../ports/two-factor-store.js';
import { activityAppender } from './activity-table.js';

/** keys.db's two-factor tables (step 6 of KEYS_FILE_STEPS): the secret is sealed, codes and tokens are hashes. */
export const TWO_FACTOR_TABLES = `
CREATE TABLE IF NOT EXISTS two_factor (
  user_id              TEXT PRIMARY KEY,
  secret_sealed        TEXT NOT NULL,
  created_at           TEXT NOT NULL,
  enabled_at           TEXT,
  last_step            INTEGER,
  recovery_code_hashes TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS two_factor_requirements (
  account_id TEXT PRIMARY KEY,
  required   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pending_sign_ins (
  id_hash    TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
`;

type Row = Omit<TwoFactorRecord, 'secret_sealed' | 'recovery_code_hashes'> & { secret_sealed: string; recovery_code_hashes: string };

const toRecord = (row: Row | undefined): TwoFactorRecord | undefined =>
  row && { ...row, secret_sealed: JSON.parse(row.secret_sealed), recovery_code_hashes: JSON.parse(row.recovery_code_hashes) };

/** Two-factor sign-in's records in keys.db, on the account store's connection: a change and its activity entry share a transaction. */
export class SqliteTwoFactorStore implements TwoFactorStore {
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    this.statements = {
      get: db.prepare<[string], Row>('SELECT * FROM two_factor WHERE user_id = ?'),
      enabledUserIds: db.prepare<[], string>('SELECT user_id FROM two_factor WHERE enabled_at IS NOT NULL ORDER BY user_id').pluck(),
      begin: db.prepare<Row>(
        `INSERT INTO two_factor (user_id, secret_sealed, created_at, enabled_at, last_step, recovery_code_hashes)
         VALUES (@user_id, @secret_sealed, @created_at, @enabled_at, @last_step, @recovery_code_hashes) ON CONFLICT (user_id) DO NOTHING`,
      ),
      enable: db.prepare<[string, number, string, string]>(
        'UPDATE two_factor SET enabled_at = ?, last_step = ?, recovery_code_hashes = ? WHERE user_id = ? AND enabled_at IS NULL',
      ),
      acceptStep: db.prepare<[number, string, number]>(
        'UPDATE two_factor SET last_step = ? WHERE user_id = ? AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < ?)',
      ),
      setCodes: db.prepare<[string, string]>('UPDATE two_factor SET recovery_code_hashes = ? WHERE user_id = ? AND enabled_at IS NOT NULL'),
      disable: db.prepare<[string]>('DELETE FROM two_factor WHERE user_id = ?'),
      required: db.prepare<[string], number>('SELECT required FROM two_factor_requirements WHERE account_id = ?').pluck(),
      setRequired: db.prepare<[string, number]>(
        'INSERT INTO two_factor_requirements (account_id, required) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET required = excluded.required',
      ),
      insertPending: db.prepare<PendingSignInRecord>(
        'INSERT INTO pending_sign_ins (id_hash, user_id, created_at, expires_at) VALUES (@id_hash, @user_id, @created_at, @expires_at)',
      ),
      dropEnded: db.prepare<[string]>('DELETE FROM pending_sign_ins WHERE expires_at <= ?'),
      pending: db.prepare<[string], PendingSignInRecord>('SELECT * FROM pending_sign_ins WHERE id_hash = ?'),
      appendActivity: activityAppender(db),
    };
  }

  async get(userId: string) {
    return toRecord(this.statements.get.get(userId));
  }

  async enabledUserIds() {
    return this.statements.enabledUserIds.all();
  }

  async begin(record: TwoFactorRecord): Promise<TwoFactorRecord> {
    return this.db
      .transaction(() => {
        this.statements.begin.run({
          ...record,
          secret_sealed: JSON.stringify(record.secret_sealed),
          recovery_code_hashes: JSON.stringify(record.recovery_code_hashes),
        });
        return toRecord(this.statements.get.get(record.user_id))!;
      })
      .immediate();
  }

  async enable(userId: string, step: number, hashes: string[], at: string, activity?: ActivityRecord) {
    return this.changed(() => this.statements.enable.run(at, step, JSON.stringify(hashes), userId).changes, activity);
  }

  async acceptStep(userId: string, step: number) {
    return this.statements.acceptStep.run(step, userId, step).changes === 1;
  }

  async spendRecoveryCode(userId: string, hash: string, activity?: ActivityRecord) {
    return this.changed(() => {
      const current = toRecord(this.statements.get.get(userId));
      if (current?.enabled_at == null || !current.recovery_code_hashes.includes(hash)) return 0;
      return this.statements.setCodes.run(JSON.stringify(current.recovery_code_hashes.filter((each) => each !== hash)), userId).changes;
    }, activity);
  }

  async replaceRecoveryCodes(userId: string, hashes: string[], activity?: ActivityRecord) {
    return this.changed(() => this.statements.setCodes.run(JSON.stringify(hashes), userId).changes, activity);
  }

  async disable(userId: string, activity?: ActivityRecord) {
    return this.changed(() => this.statements.disable.run(userId).changes, activity);
  }

  async required(accountId: string) {
    return this.statements.required.get(accountId) === 1;
  }

  async setRequired(accountId: string, required: boolean, activity?: ActivityRecord) {
    return this.changed(() => {
      if ((this.statements.required.get(accountId) === 1) === required) return 0;
      return this.statements.setRequired.run(accountId, required ? 1 : 0).changes;
    }, activity);
  }

  async insertPending(pending: PendingSignInRecord): Promise<void> {
    this.db
      .transaction(() => {
        // Ended ones are of no more use: dropping them at each sign-in keeps the table small.
        this.statements.dropEnded.run(pending.created_at);
        this.statements.insertPending.run(pending);
      })
      .immediate();
  }

  async pending(idHash: string) {
    return this.statements.pending.get(idHash);
  }

  /** `change` (answering how many rows it changed) and, when it changed one, the entry recording it, in one transaction. */
  private changed(change: () => number, activity: ActivityRecord | undefined): boolean {
    return this.db
      .transaction(() => {
        const changed = change() === 1;
        if (changed && activity) this.statements.appendActivity(activity);
        return changed;
      })
      .immediate();
  }
}
