import type Database from 'better-sqlite3';
import type { Document, DocumentWrite, IndexedField, ListPage, ListQuery, ReadModelStore } from '../../ports/read-models.js';
import { openDatabase, type Synchronous } from './database.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  doc        TEXT NOT NULL,
  PRIMARY KEY (collection, id)
) WITHOUT ROWID;
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

  constructor(path: string, synchronous: Synchronous, indexes: IndexedField[] = []) {
    this.db = openDatabase(path, synchronous);
    // Overwritten and removed documents are zeroed in place, so an erased subject leaves no plaintext behind.
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    for (const { collection, field } of indexes) {
      assertField(field);
      assertField(collection);
      this.db.exec(
        `CREATE INDEX IF NOT EXISTS documents_${collection}_${field}
         ON documents (collection, json_extract(doc, '$.${field}'), id)`,
      );
    }
    this.statements = {
      checkpoint: this.db.prepare<[string], { position: string }>('SELECT position FROM projection_checkpoints WHERE projection = ?'),
      setCheckpoint: this.db.prepare<[string, string]>(
        'INSERT INTO projection_checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
      ),
      get: this.db.prepare<[string, string], { doc: string }>('SELECT doc FROM documents WHERE collection = ? AND id = ?'),
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
    for (const row of this.db.prepare<unknown[], { doc: string }>(`SELECT doc FROM documents WHERE ${sql}`).all(...params)) {
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
    const rows = this.db.prepare<unknown[], { doc: string }>(sql).all(...params, query.limit + 1);
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit).map((row) => JSON.parse(row.doc) as Document);
    return Promise.resolve({ data: backwards ? page.reverse() : page, hasMore });
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

/** Documents of the collection whose top-level fields equal the given strings. */
function whereClause(collection: string, where: Record<string, string>): { sql: string; params: unknown[] } {
  const clauses = ['collection = ?'];
  const params: unknown[] = [collection];
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
