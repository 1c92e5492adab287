import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import type { DocumentOf, JsonDocument } from '../../ports/collections.js';
import {
  type CounterWrite,
  type CountRow,
  type DocumentWrite,
  type Fence,
  FencedOffError,
  type IndexedField,
  type ListPage,
  type ListQuery,
  type ReadModelRebuilds,
  type ReadModelStore,
  type Rebuild,
  type StoredVersion,
} from '../../ports/read-models.js';
import { holderGone } from '../../support/process-alive.js';
import { DataTooOldError, FORMAT_MARKS } from '../data-versions.js';
import { positionKey } from '../position-key.js';
import { openDatabase, type Synchronous } from './database.js';
import { assertMigrated, migrate, type SqliteStep } from './migrations.js';

/**
 * Documents are kilobytes of JSON: a rowid table keeps them out of the key's B-tree, which WITHOUT ROWID
 * rewrote on each write. `doc` is null for a removed document (its tombstone keeps the position); `position`
 * is the last event applied, as 40 zero-padded digits so that positions compare as text.
 */
const V1_SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  doc        TEXT,
  position   TEXT,
  UNIQUE (collection, id)
);
-- Positions as decimal text: EventStoreDB's (commit and prepare in one bigint) outgrow a 64-bit INTEGER.
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  projection TEXT PRIMARY KEY,
  position   TEXT NOT NULL
);
-- Leadership among the replicas that share this file (all on one host): expires_at in ms since the epoch
-- by the host's clock; pid the holder's process, in the process namespace named by host (its host name).
CREATE TABLE IF NOT EXISTS leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  token      INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  pid        INTEGER NOT NULL,
  host       TEXT NOT NULL
);
`;

/**
 * Counts per period and key (usage): a few dozen bytes a row, incremented in place. position is the last event
 * counted, as decimal text (compared as a number by the store, in the commit's transaction).
 */
const COUNTERS = `
CREATE TABLE IF NOT EXISTS counters (
  collection TEXT NOT NULL,
  counter    TEXT NOT NULL,
  period     TEXT NOT NULL,
  key        TEXT NOT NULL,
  n          INTEGER NOT NULL,
  position   TEXT NOT NULL,
  PRIMARY KEY (collection, counter, period, key)
) WITHOUT ROWID;
`;

/** Opened by tests and tools on files of their own, which no projection's earlier read models can be in. */
const NOTHING_TO_REBUILD: ReadModelRebuilds = {
  all: { collections: [], checkpoints: [] },
  usage: { collections: [], checkpoints: [] },
};

/** The read-model file's steps (its user_version), the same numbers as on MongoDB (read-model-store.ts there). */
export function readModelSteps({ all, usage }: ReadModelRebuilds): SqliteStep[] {
  return [
    {
      version: 1,
      does: 'documents, checkpoints and leases as data-v1 made them',
      run(db) {
        const documents = db
          .prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'")
          .get();
        if (documents !== undefined && (/WITHOUT ROWID/i.test(documents.sql) || !/\bposition\b/.test(documents.sql)))
          throw new DataTooOldError(db.name, 'documents without positions');
        db.exec(V1_SCHEMA);
      },
    },
    { version: 2, does: 'usage counters', run: (db) => db.exec(COUNTERS) },
    { version: 3, does: 'read models rebuilt with their personal fields sealed', run: (db) => rebuild(db, all, FORMAT_MARKS.sealed) },
    { version: 4, does: 'usage rebuilt as counters, not bucket documents', run: (db) => rebuild(db, usage, FORMAT_MARKS.usage) },
  ];
}

/**
 * Removes what the projections rebuild from the log, in the step's transaction (secure_delete zeroes the rows; the
 * store then empties the WAL). A store whose mark says it was rebuilt so already, before steps were numbered, keeps
 * its read models; the mark goes either way.
 */
function rebuild(db: Database.Database, { collections, checkpoints }: Rebuild, mark: string): void {
  const removeCheckpoint = db.prepare<[string]>('DELETE FROM projection_checkpoints WHERE projection = ?');
  const marked = db.prepare<[string]>('SELECT 1 FROM projection_checkpoints WHERE projection = ?').get(mark) !== undefined;
  if (!marked) {
    const removeDocuments = db.prepare<[string]>('DELETE FROM documents WHERE collection = ?');
    const removeCounters = db.prepare<[string]>('DELETE FROM counters WHERE collection = ?');
    for (const collection of collections) {
      removeDocuments.run(collection);
      removeCounters.run(collection);
    }
    for (const checkpoint of checkpoints) removeCheckpoint.run(checkpoint);
  }
  removeCheckpoint.run(mark);
}

/** How the store is opened: what its data steps rebuild, or `asIs` (no step run: StoreBehindError if one is due). */
export interface ReadModelFileOptions {
  rebuilds?: ReadModelRebuilds;
  asIs?: boolean;
}

/** Newer than the stored position, or the stored document has none (written before positions were kept). */
const NEWER = 'documents.position IS NULL OR documents.position < excluded.position';

const FIELD = /^[a-z_][a-z0-9_]*$/;

export class SqliteReadModelStore implements ReadModelStore {
  private readonly db: Database.Database;
  private readonly statements;
  /** The list indexes this store keeps, by name, with the SQL that builds one. */
  private readonly listIndexes: { name: string; sql: string }[];
  /** Lists and blankings by their SQL: a few shapes per collection, each prepared once. */
  private readonly prepared = new Map<string, Database.Statement<unknown[], { doc: string; position: string | null }>>();

  constructor(path: string, synchronous: Synchronous, indexes: IndexedField[] = [], options: ReadModelFileOptions = {}) {
    this.db = openDatabase(path, synchronous);
    // Overwritten and removed documents are zeroed in place, so an erased subject leaves no plaintext behind.
    this.db.pragma('secure_delete = ON');
    const steps = readModelSteps(options.rebuilds ?? NOTHING_TO_REBUILD);
    try {
      if (options.asIs) assertMigrated(this.db, path, steps);
      // A step that rebuilt read models leaves no copy of what it removed in the WAL.
      else if (migrate(this.db, path, steps) > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.listIndexes = indexes.map(({ collection, field }) => {
      assertField(field);
      assertField(collection);
      // Partial, per collection: a write pays for its own collection's list indexes only, not for every one.
      return {
        name: `${collection}_by_${field}`,
        sql: `CREATE INDEX IF NOT EXISTS ${collection}_by_${field}
         ON documents (json_extract(doc, '$.${field}'), id) WHERE collection = '${collection}'`,
      };
    });
    for (const { sql } of this.listIndexes) this.db.exec(sql);
    // A list index of an earlier version (subjects by their plain external id, say) would cost every write and serve no list.
    if (this.listIndexes.length > 0) {
      const wanted = new Set(this.listIndexes.map(({ name }) => name));
      const listIndexes = this.db
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents' AND name GLOB '*_by_*'",
        )
        .all();
      for (const { name } of listIndexes) if (!wanted.has(name)) this.db.exec(`DROP INDEX IF EXISTS "${name}"`);
    }
    this.statements = {
      checkpoint: this.db.prepare<[string], { position: string }>('SELECT position FROM projection_checkpoints WHERE projection = ?'),
      // Forwards only: decimal text without leading zeros compares as a number by its length first.
      setCheckpoint: this.db.prepare<[string, string]>(
        `INSERT INTO projection_checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position
         WHERE length(excluded.position) > length(position) OR (length(excluded.position) = length(position) AND excluded.position > position)`,
      ),
      get: this.db.prepare<[string, string], { doc: string }>(
        'SELECT doc FROM documents WHERE collection = ? AND id = ? AND doc IS NOT NULL',
      ),
      getMany: this.db.prepare<[string, string], { id: string; doc: string | null; position: string | null }>(
        'SELECT id, doc, position FROM documents WHERE collection = ? AND id IN (SELECT value FROM json_each(?))',
      ),
      // A removal keeps the row, emptied, as the tombstone that keeps the position.
      remove: this.db.prepare<[string, string, string]>(
        `INSERT INTO documents (collection, id, doc, position) VALUES (?, ?, NULL, ?)
         ON CONFLICT (collection, id) DO UPDATE SET doc = NULL, position = excluded.position WHERE ${NEWER}`,
      ),
      put: this.db.prepare<[string, string, string, string]>(
        `INSERT INTO documents (collection, id, doc, position) VALUES (?, ?, ?, ?)
         ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc, position = excluded.position WHERE ${NEWER}`,
      ),
      blank: this.db.prepare<[string, string, string, string]>(
        'UPDATE documents SET doc = ?, position = ? WHERE collection = ? AND id = ?',
      ),
      counted: this.db.prepare<[string, string, string, string], { position: string }>(
        'SELECT position FROM counters WHERE collection = ? AND counter = ? AND period = ? AND key = ?',
      ),
      count: this.db.prepare<[string, string, string, string, number, string]>(
        `INSERT INTO counters (collection, counter, period, key, n, position) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (collection, counter, period, key) DO UPDATE SET n = n + excluded.n, position = excluded.position`,
      ),
      counts: this.db.prepare<[string, string, string, string], CountRow>(
        'SELECT period, key, n FROM counters WHERE collection = ? AND counter = ? AND period >= ? AND period < ?',
      ),
      lease: this.db.prepare<[string], { holder: string; token: number; expires_at: number; pid: number; host: string }>(
        'SELECT holder, token, expires_at, pid, host FROM leases WHERE name = ?',
      ),
      setLease: this.db.prepare<[string, string, number, number, number, string]>(
        `INSERT INTO leases (name, holder, token, expires_at, pid, host) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at,
           pid = excluded.pid, host = excluded.host`,
      ),
      releaseLease: this.db.prepare<[string, string]>('UPDATE leases SET expires_at = 0 WHERE name = ? AND holder = ?'),
    };
  }

  checkpoint(projection: string): Promise<bigint | undefined> {
    const row = this.statements.checkpoint.get(projection);
    return Promise.resolve(row === undefined ? undefined : BigInt(row.position));
  }

  /** One IMMEDIATE transaction: the fence is read under the write lock, so no new holder can come between it and the writes. */
  async commit(projection: string, position: bigint, writes: DocumentWrite[], fence?: Fence): Promise<void> {
    this.db
      .transaction(() => {
        if (fence !== undefined && this.statements.lease.get(fence.lease)?.token !== fence.token) throw new FencedOffError(fence);
        for (const write of writes) {
          if ('where' in write) this.blank(write, position);
          else if ('counter' in write) this.count(write);
          else if (write.doc === null) this.statements.remove.run(write.collection, write.id, positionKey(write.position ?? position));
          else this.statements.put.run(write.collection, write.id, JSON.stringify(write.doc), positionKey(write.position ?? position));
        }
        this.statements.setCheckpoint.run(projection, position.toString());
      })
      .immediate();
  }

  checkFence(fence: Fence): Promise<void> {
    if (this.statements.lease.get(fence.lease)?.token !== fence.token) return Promise.reject(new FencedOffError(fence));
    return Promise.resolve();
  }

  /** Adds the events the row has not counted yet: read and written in the commit's transaction. */
  private count({ collection, counter, period, key, positions }: CounterWrite): void {
    const held = this.statements.counted.get(collection, counter, period, key);
    const last = held === undefined ? undefined : BigInt(held.position);
    const fresh = last === undefined ? positions : positions.filter((position) => position > last);
    if (fresh.length > 0) this.statements.count.run(collection, counter, period, key, fresh.length, fresh.at(-1)!.toString());
  }

  /** Blanked documents take the erasure's position unless they hold a newer one, so an older write cannot bring their fields back. */
  private blank({ collection, where, keep, set }: Extract<DocumentWrite, { where: unknown }>, position: bigint): void {
    const { sql, params } = whereClause(collection, where);
    const erasedAt = positionKey(position);
    for (const row of this.query(`SELECT doc, position FROM documents WHERE ${sql}`).all(...params)) {
      const doc = JSON.parse(row.doc) as JsonDocument;
      const kept = Object.fromEntries(keep.filter((field) => field in doc).map((field) => [field, doc[field]]));
      const at = row.position !== null && row.position > erasedAt ? row.position : erasedAt;
      this.statements.blank.run(JSON.stringify({ ...kept, ...set, id: doc.id }), at, collection, doc.id);
    }
  }

  purge(): Promise<void> {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return Promise.resolve();
  }

  /** secure_delete zeroes the removed rows (and their index entries) in place; purge then empties the WAL. */
  reset(collections: readonly string[], checkpoints: readonly string[]): Promise<void> {
    const removeDocuments = this.db.prepare<[string]>('DELETE FROM documents WHERE collection = ?');
    const removeCounters = this.db.prepare<[string]>('DELETE FROM counters WHERE collection = ?');
    const removeCheckpoint = this.db.prepare<[string]>('DELETE FROM projection_checkpoints WHERE projection = ?');
    this.db
      .transaction(() => {
        for (const collection of collections) {
          removeDocuments.run(collection);
          removeCounters.run(collection);
        }
        for (const checkpoint of checkpoints) removeCheckpoint.run(checkpoint);
      })
      .immediate();
    return this.purge();
  }

  /** Documents are read back as the JSON their projection wrote: its collection's type (JSON.parse answers `any`). */
  get<C extends string>(collection: C, id: string): Promise<DocumentOf<C> | undefined> {
    const row = this.statements.get.get(collection, id);
    return Promise.resolve(row ? JSON.parse(row.doc) : undefined);
  }

  getMany<C extends string>(collection: C, ids: readonly string[]): Promise<Map<string, StoredVersion<DocumentOf<C>>>> {
    const found = new Map<string, StoredVersion<DocumentOf<C>>>();
    if (ids.length === 0) return Promise.resolve(found);
    for (const row of this.statements.getMany.all(collection, JSON.stringify(ids))) {
      found.set(row.id, {
        doc: row.doc === null ? undefined : JSON.parse(row.doc),
        position: row.position === null ? undefined : BigInt(row.position),
      });
    }
    return Promise.resolve(found);
  }

  list<C extends string>(collection: C, query: ListQuery): Promise<ListPage<DocumentOf<C>>> {
    const where = whereClause(collection, query.where ?? {});
    const clauses = [where.sql];
    const params = where.params;
    const backwards = query.endingBefore !== undefined;
    if (query.startingAfter !== undefined) {
      clauses.push('id < ?');
      params.push(query.startingAfter);
    } else if (backwards) {
      clauses.push('id > ?');
      params.push(query.endingBefore);
    }
    const sql = `SELECT doc, position FROM documents WHERE ${clauses.join(' AND ')} ORDER BY id ${backwards ? 'ASC' : 'DESC'} LIMIT ?`;
    const rows = this.query(sql).all(...params, query.limit + 1);
    const hasMore = rows.length > query.limit;
    const page: DocumentOf<C>[] = rows.slice(0, query.limit).map((row) => JSON.parse(row.doc));
    return Promise.resolve({ data: backwards ? page.reverse() : page, hasMore });
  }

  counts(collection: string, counter: string, from: string, to: string): Promise<CountRow[]> {
    return Promise.resolve(this.statements.counts.all(collection, counter, from, to));
  }

  private query(sql: string): Database.Statement<unknown[], { doc: string; position: string | null }> {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[], { doc: string; position: string | null }>(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  /**
   * Every replica of this file runs on this host (SQLite's WAL needs shared memory), so they share Date.now()
   * as the lease's clock, and a lease whose holder's process has died is free at once: a replica killed or
   * crashed is taken over (or, restarted, takes over itself) without waiting for its lease to expire. Only
   * a holder of the same host name is looked for: replicas in containers of their own (each its own process
   * namespace, its own host name) cannot see each other's processes, so theirs wait for the lease to expire.
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<number | undefined> {
    const token = this.db
      .transaction(() => {
        const now = Date.now();
        const lease = this.statements.lease.get(name);
        const abandoned = lease !== undefined && lease.holder !== holder && holderGone({ pid: lease.pid, host: lease.host });
        const free = lease === undefined || lease.expires_at <= now || abandoned;
        if (!free && lease.holder !== holder) return undefined;
        const next = free ? (lease?.token ?? 0) + 1 : lease.token;
        this.statements.setLease.run(name, holder, next, now + ttlMs, process.pid, hostname());
        return next;
      })
      .immediate();
    return Promise.resolve(token);
  }

  releaseLease(name: string, holder: string): Promise<void> {
    this.statements.releaseLease.run(name, holder);
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

/**
 * Documents of the collection whose top-level fields equal the given strings. The collection is written into
 * the SQL (checked as a name) so that SQLite can use the collection's partial indexes.
 */
function whereClause(collection: string, where: Record<string, string>): { sql: string; params: unknown[] } {
  assertField(collection);
  // Tombstones (removed documents) are never read as documents.
  const clauses = [`collection = '${collection}'`, 'doc IS NOT NULL'];
  const params: unknown[] = [];
  for (const [field, value] of Object.entries(where)) {
    assertField(field);
    clauses.push(`json_extract(doc, '$.${field}') = ?`);
    params.push(value);
  }
  return { sql: clauses.join(' AND '), params };
}

function assertField(name: string): void {
  if (!FIELD.test(name)) throw new Error(`not a field name: ${name}`);
}
