import type Database from 'better-sqlite3';
import type { ActivityRecord } from '../../domain/accounts.js';
import type { ApiKeyRecord } from '../../domain/api-keys.js';
import type { KeyStore } from '../../ports/key-store.js';
import { activityAppender } from './activity-table.js';
import { openDatabase, type Synchronous } from './database.js';
import { KEYS_FILE_STEPS } from './keys-file.js';
import { migrate } from './migrations.js';

type Row = Omit<ApiKeyRecord, 'scopes' | 'origins'> & { scopes: string; origins: string };

/** Keys remembered at most: every live key of a deployment fits; a flood of distinct keys only refills it. */
const CACHED_KEYS = 10_000;

/**
 * API keys in a SQLite file. Every request looks its key up, so found keys are remembered for as long as the
 * file is unchanged: `PRAGMA data_version` moves when another connection (another replica, `nature keys`)
 * commits, and this connection's own writes clear the cache, so a revoked or rotated key is refused at once.
 * Unknown hashes are not remembered: anyone can send those. `version()` serves callers that keep keys of their
 * own (the HTTP layer's key cache): it reads data_version at most once per event-loop turn.
 */
export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly cache = new Map<string, ApiKeyRecord>();
  private cachedVersion: number | undefined;
  /** Moves with each write of this connection (which data_version does not count) and each change of data_version. */
  private generation = 0;
  private dataVersion: number | undefined;
  private checkedThisTurn = false;
  private readonly nextTurn = () => {
    this.checkedThisTurn = false;
  };

  constructor(path: string, synchronous: Synchronous) {
    this.db = openDatabase(path, synchronous);
    migrate(this.db, path, KEYS_FILE_STEPS);
    this.statements = {
      insert: this.db.prepare<Row>(
        `INSERT INTO api_keys (id, name, environment, type, scopes, hash, last4, created_at, revoked_at, revoked_reason, rotated_from, origins, last_used_at)
         VALUES (@id, @name, @environment, @type, @scopes, @hash, @last4, @created_at, @revoked_at, @revoked_reason, @rotated_from, @origins, @last_used_at)`,
      ),
      byHash: this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE hash = ?'),
      byId: this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE id = ?'),
      all: this.db.prepare<[], Row>('SELECT * FROM api_keys ORDER BY id'),
      dataVersion: this.db.prepare<[], number>('PRAGMA data_version').pluck(),
      // A rolled key still in its grace period (its expiry after `at`, as ISO strings compare) is revoked too.
      revoke: this.db.prepare<{ at: string; reason: string; id: string }>(
        "UPDATE api_keys SET revoked_at = @at, revoked_reason = @reason WHERE id = @id AND (revoked_at IS NULL OR (revoked_reason = 'rotated' AND revoked_at > @at))",
      ),
      used: this.db.prepare<{ id: string; at: string }>(
        'UPDATE api_keys SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)',
      ),
      retire: this.db.prepare<[string, string]>(
        "UPDATE api_keys SET revoked_at = ?, revoked_reason = 'rotated' WHERE id = ? AND revoked_at IS NULL",
      ),
      // The activity table is the account store's, in the same file: a change and its entry commit together.
      appendActivity: activityAppender(this.db),
    };
  }

  // async: a refusal (a duplicate, a key that is not active) is a rejected promise, as the port's callers expect.
  async insert(record: ApiKeyRecord, activity?: ActivityRecord): Promise<void> {
    this.written();
    this.db
      .transaction(() => {
        this.statements.insert.run(toRow(record));
        if (activity) this.statements.appendActivity(activity);
      })
      .immediate();
  }

  /** The generation; data_version (another process's commits) is read at most once per event-loop turn. */
  version(): number {
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      setImmediate(this.nextTurn);
      this.refresh();
    }
    return this.generation;
  }

  /** The generation, data_version read now. */
  private refresh(): number {
    const dataVersion = this.statements.dataVersion.get();
    if (dataVersion !== this.dataVersion) {
      this.dataVersion = dataVersion;
      this.generation += 1;
    }
    return this.generation;
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const version = this.refresh();
    if (version !== this.cachedVersion) {
      this.cache.clear();
      this.cachedVersion = version;
    }
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const record = fromRow(this.statements.byHash.get(hash));
    if (record !== undefined) {
      if (this.cache.size >= CACHED_KEYS) this.cache.clear();
      // Shared by every later request with this key: frozen, arrays included, so no caller can change it for the others.
      Object.freeze(record.scopes);
      Object.freeze(record.origins);
      this.cache.set(hash, Object.freeze(record));
    }
    return record;
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return fromRow(this.statements.byId.get(id));
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.statements.all.all().map((row) => fromRow(row)!);
  }

  async revoke(id: string, at: string, reason: 'revoked' | 'rotated', activity?: ActivityRecord): Promise<ApiKeyRecord | undefined> {
    this.written();
    this.db
      .transaction(() => {
        const changed = this.statements.revoke.run({ at, reason, id }).changes;
        if (changed === 1 && activity) this.statements.appendActivity(activity);
      })
      .immediate();
    return this.get(id);
  }

  async rotate(oldId: string, replacement: ApiKeyRecord, at: string, activity?: ActivityRecord): Promise<void> {
    this.written();
    this.db
      .transaction(() => {
        const changed = this.statements.retire.run(at, oldId).changes;
        if (changed !== 1) throw new Error(`key ${oldId} is not an active key`);
        this.statements.insert.run(toRow(replacement));
        if (activity) this.statements.appendActivity(activity);
      })
      .immediate();
  }

  /** Before a write of this connection: what was found may be about to change. */
  private written(): void {
    this.generation += 1;
    this.cache.clear();
  }

  /**
   * Not a change of any key's standing, so the keys found stay found (no `written`): their `last_used_at` may lag in
   * what findByHash answers, which reads it nowhere; `get` and `list` read the file.
   */
  async markUsed(hours: ReadonlyMap<string, string>): Promise<void> {
    if (hours.size === 0) return;
    this.db
      .transaction(() => {
        for (const [id, at] of hours) this.statements.used.run({ id, at });
      })
      .immediate();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function toRow(record: ApiKeyRecord): Row {
  return { ...record, scopes: JSON.stringify(record.scopes), origins: JSON.stringify(record.origins) };
}

function fromRow(row: Row | undefined): ApiKeyRecord | undefined {
  return row ? { ...row, scopes: JSON.parse(row.scopes), origins: JSON.parse(row.origins) } : undefined;
}
