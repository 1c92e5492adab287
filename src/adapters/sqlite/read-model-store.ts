import type Database from 'better-sqlite3';
import type { Document, DocumentWrite, IndexedField, ListPage, ListQuery, ReadModelStore, StoredVersion } from '../../ports/read-models.js';
import { openDatabase, type Synchronous } from './database.js';

/** Documents are kilobytes of JSON: a rowid table keeps them out of the key's B-tree, which WITHOUT ROWID rewrote on each write. */
const DOCUMENTS = `
CREATE TABLE IF NOT EXISTS documents (
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  doc        TEXT NOT NULL,
  UNIQUE (collection, id)
);
`;

const SCHEMA = `${DOCUMENTS}
-- Positions as decimal text: EventStoreDB's (commit and prepare in one bigint) outgrow a 64-bit INTEGER.
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  projection TEXT PRIMARY KEY,
  position   TEXT NOT NULL
);
`;

const FIELD = /^[a-z_][a-z0-9_]*$/;

export class SqliteReadModelStore implements ReadModelStore {
  private readonly db: Database.Database;
  private readonly statements;
  /** Lists and blankings by their SQL: a few shapes per collection, each prepared once. */
  private readonly prepared = new Map<string, Database.Statement<unknown[], { doc: string }>>();

  constructor(path: string, synchronous: Synchronous, indexes: IndexedField[] = []) {
    this.db = openDatabase(path, synchronous);
    // Overwritten and removed documents are zeroed in place, so an erased subject leaves no plaintext behind.
    this.db.pragma('secure_delete = ON');
    moveToRowidTable(this.db);
    this.db.exec(SCHEMA);
    for (const { collection, field } of indexes) {
      assertField(field);
      assertField(collection);
      // Partial, per collection: a write pays for its own collection's list indexes only, not for every one.
      this.db.exec(
        `CREATE INDEX IF NOT EXISTS ${collection}_by_${field}
         ON documents (json_extract(doc, '$.${field}'), id) WHERE collection = '${collection}'`,
      );
    }
    this.statements = {
      checkpoint: this.db.prepare<[string], { position: string }>('SELECT position FROM projection_checkpoints WHERE projection = ?'),
      setCheckpoint: this.db.prepare<[string, string]>(
        'INSERT INTO projection_checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
      ),
      get: this.db.prepare<[string, string], { doc: string }>('SELECT doc FROM documents WHERE collection = ? AND id = ?'),
      getMany: this.db.prepare<[string, string], { id: string; doc: string }>(
        'SELECT id, doc FROM documents WHERE collection = ? AND id IN (SELECT value FROM json_each(?))',
      ),
      remove: this.db.prepare<[string, string]>('DELETE FROM documents WHERE collection = ? AND id = ?'),
      put: this.db.prepare<[string, string, string]>(
        'INSERT INTO documents (collection, id, doc) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc',
      ),
    };
  }

  checkpoint(projection: string): Promise<bigint | undefined> {
    const row = this.statements.checkpoint.get(projection);
    return Promise.resolve(row === undefined ? undefined : BigInt(row.position));
  }

  commit(projection: string, position: bigint, writes: DocumentWrite[]): Promise<void> {
    this.db.transaction(() => {
      for (const write of writes) {
        if ('where' in write) this.blank(write);
        else if (write.doc === null) this.statements.remove.run(write.collection, write.id);
        else this.statements.put.run(write.collection, write.id, JSON.stringify(write.doc));
      }
      this.statements.setCheckpoint.run(projection, position.toString());
    })();
    return Promise.resolve();
  }

  private blank({ collection, where, keep, set }: Extract<DocumentWrite, { where: unknown }>): void {
    const { sql, params } = whereClause(collection, where);
    for (const row of this.query(`SELECT doc FROM documents WHERE ${sql}`).all(...params)) {
      const doc = JSON.parse(row.doc) as Document;
      const kept = Object.fromEntries(keep.filter((field) => field in doc).map((field) => [field, doc[field]]));
      this.statements.put.run(collection, doc.id, JSON.stringify({ ...kept, ...set, id: doc.id }));
    }
  }

  purge(): Promise<void> {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return Promise.resolve();
  }

  get(collection: string, id: string): Promise<Document | undefined> {
    const row = this.statements.get.get(collection, id);
    return Promise.resolve(row ? (JSON.parse(row.doc) as Document) : undefined);
  }

  getMany(collection: string, ids: readonly string[]): Promise<Map<string, StoredVersion>> {
    const found = new Map<string, StoredVersion>();
    if (ids.length === 0) return Promise.resolve(found);
    // Documents and checkpoints commit together here, so a stored document never holds an event past its checkpoint.
    for (const row of this.statements.getMany.all(collection, JSON.stringify(ids))) {
      found.set(row.id, { doc: JSON.parse(row.doc) as Document, position: undefined });
    }
    return Promise.resolve(found);
  }

  list(collection: string, query: ListQuery): Promise<ListPage> {
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
    const sql = `SELECT doc FROM documents WHERE ${clauses.join(' AND ')} ORDER BY id ${backwards ? 'ASC' : 'DESC'} LIMIT ?`;
    const rows = this.query(sql).all(...params, query.limit + 1);
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit).map((row) => JSON.parse(row.doc) as Document);
    return Promise.resolve({ data: backwards ? page.reverse() : page, hasMore });
  }

  private query(sql: string): Database.Statement<unknown[], { doc: string }> {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[], { doc: string }>(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
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

/** Documents written by an earlier version (WITHOUT ROWID, indexed over every collection) move to the current table, checkpoints untouched. */
function moveToRowidTable(db: Database.Database): void {
  const table = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'").get();
  if (table === undefined || !/WITHOUT ROWID/i.test(table.sql)) return;
  db.transaction(() => {
    db.exec(`ALTER TABLE documents RENAME TO documents_before;
      ${DOCUMENTS}
      INSERT INTO documents (collection, id, doc) SELECT collection, id, doc FROM documents_before;
      DROP TABLE documents_before;`);
  })();
}

/**
 * Documents of the collection whose top-level fields equal the given strings. The collection is written into
 * the SQL (checked as a name) so that SQLite can use the collection's partial indexes.
 */
function whereClause(collection: string, where: Record<string, string>): { sql: string; params: unknown[] } {
  assertField(collection);
  const clauses = [`collection = '${collection}'`];
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
