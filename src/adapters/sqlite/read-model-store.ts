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
      for (const { collection, id, doc } of writes) {
        if (doc === null) this.statements.remove.run(collection, id);
        else this.statements.put.run(collection, id, JSON.stringify(doc));
      }
      this.statements.setCheckpoint.run(projection, position.toString());
    })();
    return Promise.resolve();
  }

  get(collection: string, id: string): Promise<Document | undefined> {
    const row = this.statements.get.get(collection, id);
    return Promise.resolve(row ? (JSON.parse(row.doc) as Document) : undefined);
  }

  list(collection: string, query: ListQuery): Promise<ListPage> {
    const clauses = ['collection = ?'];
    const params: unknown[] = [collection];
    for (const [field, value] of Object.entries(query.where ?? {})) {
      assertField(field);
      clauses.push(`json_extract(doc, '$.${field}') = ?`);
      params.push(value);
    }
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

function assertField(name: string): void {
  if (!FIELD.test(name)) throw new Error(`not a field name: ${name}`);
}
