import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Claim, ClaimRequest, IdempotencyStore } from '../../ports/idempotency.js';
import { holderGone, INSTANCE } from '../../support/process-alive.js';
import { DataTooOldError } from '../data-versions.js';
import { openDatabase, type Synchronous } from './database.js';
import { columnsOf, migrate, type SqliteStep } from './migrations.js';

/** The keys as data-v1 made them (holders included). */
const V1_SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
  key          TEXT PRIMARY KEY,
  fingerprint  TEXT NOT NULL,
  holder       TEXT,
  response     TEXT,
  locked_until INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
`;

/** idempotency.db's steps (its user_version). */
export const IDEMPOTENCY_FILE_STEPS: SqliteStep[] = [
  {
    version: 1,
    does: 'idempotency keys as data-v1 made them',
    run(db) {
      const columns = columnsOf(db, 'idempotency_keys');
      if (columns.length > 0 && !columns.includes('holder')) throw new DataTooOldError(db.name, 'idempotency keys without holders');
      db.exec(V1_SCHEMA);
    },
  },
];

interface Row {
  fingerprint: string;
  holder: string | null;
  response: string | null;
  locked_until: number;
}

/**
 * A holder names its process (`pid:instance:claim`): every process using the data directory runs on this host, so
 * a key held by one that died (SIGKILL, power cut) is taken over at once instead of when its lease runs out.
 */
const newHolder = () => `${process.pid}:${INSTANCE}:${randomUUID()}`;

/** Whether the process that claimed as `holder` is gone; a holder of another form (from before) is left to its lease. */
function holderDied(holder: string | null): boolean {
  const [pid, instance, claim] = holder?.split(':') ?? [];
  if (claim === undefined) return false;
  return holderGone({ pid: Number(pid), instance });
}

/** Idempotency keys in their own SQLite file, so rebuilding the read models never forgets them. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(path: string, synchronous: Synchronous) {
    this.db = openDatabase(path, synchronous);
    // Stored answers may hold personal data (sealed, but still): leave no old copy in freed pages.
    this.db.pragma('secure_delete = ON');
    migrate(this.db, path, IDEMPOTENCY_FILE_STEPS);
    this.statements = {
      expire: this.db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?'),
      get: this.db.prepare<[string], Row>('SELECT fingerprint, holder, response, locked_until FROM idempotency_keys WHERE key = ?'),
      insert: this.db.prepare<[string, string, string, number, number]>(
        'INSERT INTO idempotency_keys (key, fingerprint, holder, response, locked_until, expires_at) VALUES (?, ?, ?, NULL, ?, ?)',
      ),
      relock: this.db.prepare<[string, number, string]>('UPDATE idempotency_keys SET holder = ?, locked_until = ? WHERE key = ?'),
      complete: this.db.prepare<[string, string, string]>(
        'UPDATE idempotency_keys SET response = ?, locked_until = 0 WHERE key = ? AND holder = ? AND response IS NULL',
      ),
      release: this.db.prepare<[string, string]>('DELETE FROM idempotency_keys WHERE key = ? AND holder = ? AND response IS NULL'),
    };
  }

  claim({ key, unscopedKey, fingerprint, now, leaseMs, ttlMs }: ClaimRequest): Promise<Claim> {
    const at = now.getTime();
    const holder = newHolder();
    /** What a stored key answers this request, or undefined when its request died and this one may take over. */
    const heldBy = (row: Row): Claim | undefined => {
      if (row.fingerprint !== fingerprint) return { outcome: 'reused' };
      if (row.response !== null) return { outcome: 'replay', response: row.response };
      if (row.locked_until > at && !holderDied(row.holder)) return { outcome: 'in_use' };
      return undefined;
    };
    const claim = this.db
      .transaction((): Claim => {
        this.statements.expire.run(at);
        const before = unscopedKey === undefined ? undefined : this.statements.get.get(unscopedKey);
        const honoured = before && heldBy(before);
        if (honoured) return honoured.outcome === 'replay' ? { ...honoured, unscoped: true } : honoured;
        const row = this.statements.get.get(key);
        if (row === undefined) {
          this.statements.insert.run(key, fingerprint, holder, at + leaseMs, at + ttlMs);
          return { outcome: 'claimed', holder };
        }
        const held = heldBy(row);
        if (held) return held;
        // The request that held it never finished (its process died): this retry runs it.
        this.statements.relock.run(holder, at + leaseMs, key);
        return { outcome: 'claimed', holder };
      })
      .immediate();
    return Promise.resolve(claim);
  }

  complete(key: string, holder: string, response: string): Promise<void> {
    this.statements.complete.run(response, key, holder);
    return Promise.resolve();
  }

  release(key: string, holder: string): Promise<void> {
    this.statements.release.run(key, holder);
    return Promise.resolve();
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
