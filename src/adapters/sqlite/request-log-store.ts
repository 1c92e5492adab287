import type Database from 'better-sqlite3';
import { isRoute, type RequestFilter, type RequestLogStore, type RequestPage, type RequestRecord } from '../../ports/request-log.js';
import { openDatabase, type Synchronous } from './database.js';
import { migrate, type SqliteStep } from './migrations.js';

/** sandbox.requests.db's steps (its user_version). */
export const REQUEST_LOG_FILE_STEPS: SqliteStep[] = [
  {
    version: 1,
    does: 'the request log',
    run(db) {
      db.exec(`
        CREATE TABLE requests (
          id              TEXT PRIMARY KEY,
          at              INTEGER NOT NULL,
          method          TEXT NOT NULL,
          route           TEXT,
          path            TEXT NOT NULL,
          status          INTEGER NOT NULL,
          duration_ms     REAL NOT NULL,
          key_id          TEXT,
          key_hint        TEXT,
          idempotency_key TEXT,
          request_body    TEXT,
          problem         TEXT
        );
        CREATE INDEX requests_at ON requests (at);
        CREATE INDEX requests_by_key ON requests (key_id, id);`);
    },
  },
];

const COLUMNS = 'id, at, method, route, path, status, duration_ms, key_id, key_hint, idempotency_key, request_body, problem';
/** Rows removed per statement, so that a prune never holds the file's write lock for long. */
const PRUNE_BATCH = 2000;

/** The filter as SQL conditions and their values. */
function conditions(filter: RequestFilter, before: string | undefined): [string, unknown[]] {
  const parts: string[] = [];
  const values: unknown[] = [];
  if (filter.statusClass !== undefined) {
    parts.push('status >= ? AND status < ?');
    values.push(filter.statusClass * 100, filter.statusClass * 100 + 100);
  }
  if (filter.path !== undefined && isRoute(filter.path)) {
    parts.push('route = ?');
    values.push(filter.path);
  } else if (filter.path !== undefined) {
    parts.push('substr(path, 1, ?) = ?');
    values.push(filter.path.length, filter.path);
  }
  if (filter.keyId !== undefined) {
    parts.push('key_id = ?');
    values.push(filter.keyId);
  }
  if (filter.since !== undefined) {
    parts.push('at >= ?');
    values.push(filter.since);
  }
  if (filter.until !== undefined) {
    parts.push('at < ?');
    values.push(filter.until);
  }
  if (before !== undefined) {
    parts.push('id < ?');
    values.push(before);
  }
  return [parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`, values];
}

/**
 * The environment's request log in a file of its own (`sandbox.requests.db`), so that its writes never wait on the
 * log's commits nor hold them up. NORMAL: a power cut may lose the last second of records, never the process's crash.
 */
export class SqliteRequestLogStore implements RequestLogStore {
  private readonly db: Database.Database;
  private readonly insert;
  private readonly one;
  private readonly pruneBatch;

  constructor(path: string, synchronous: Synchronous) {
    this.db = openDatabase(path, synchronous);
    migrate(this.db, path, REQUEST_LOG_FILE_STEPS);
    this.insert = this.db.prepare<RequestRecord>(
      `INSERT OR IGNORE INTO requests (${COLUMNS}) VALUES (@id, @at, @method, @route, @path, @status, @duration_ms, @key_id, @key_hint, @idempotency_key, @request_body, @problem)`,
    );
    this.one = this.db.prepare<[string], RequestRecord>(`SELECT ${COLUMNS} FROM requests WHERE id = ?`);
    this.pruneBatch = this.db.prepare<[number, number]>(
      'DELETE FROM requests WHERE rowid IN (SELECT rowid FROM requests WHERE at < ? LIMIT ?)',
    );
  }

  append(records: readonly RequestRecord[]): Promise<void> {
    this.db.transaction(() => {
      for (const record of records) this.insert.run(record);
    })();
    return Promise.resolve();
  }

  list(filter: RequestFilter, { limit, before }: { limit: number; before?: string }): Promise<RequestPage> {
    const [where, values] = conditions(filter, before);
    const rows = this.db
      .prepare<unknown[], RequestRecord>(`SELECT ${COLUMNS} FROM requests ${where} ORDER BY id DESC LIMIT ?`)
      .all(...values, limit + 1);
    return Promise.resolve({ data: rows.slice(0, limit), hasMore: rows.length > limit });
  }

  get(id: string): Promise<RequestRecord | undefined> {
    return Promise.resolve(this.one.get(id));
  }

  async prune(cutoff: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const { changes } = this.pruneBatch.run(cutoff, PRUNE_BATCH);
      removed += changes;
      if (changes < PRUNE_BATCH) return removed;
      // Requests are answered between batches: a month's backlog is pruned without stalling them.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
