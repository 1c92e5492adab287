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
  type ReadModelStore,
  type StoredVersion,
} from '../../ports/read-models.js';
import { type PostgresOptions, type PostgresPool, poolFor, type Sql, type TransactionSql } from './client.js';
import { migrate, underSchemaLock } from './migrations.js';
import { READ_MODEL_STEPS } from './read-models-schema.js';

/** A document write that replaces or removes one document (not a blanking, not a counter). */
type DocumentPut = Extract<DocumentWrite, { id: string }>;
type Blanking = Extract<DocumentWrite, { where: unknown }>;

/** Names put in SQL text (collections, fields of the list indexes): checked, as identifiers and literals must be. */
const NAME = /^[a-z_][a-z0-9_]*$/;

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`not a field name: ${name}`);
  return name;
}

export interface PostgresReadModelOptions extends PostgresOptions {
  /** An operator command's: no step run, StoreBehindError when one is due. */
  asIs?: boolean;
}

/**
 * Read models in an environment's PostgreSQL schema, beside its log: one `documents` table for every collection,
 * with a partial expression index per listed field. A commit is one transaction: under a fence it first reads the
 * lease row FOR SHARE, so a takeover (an UPDATE of that row) waits for the commit or, come first, is seen by it; the
 * writes then follow the positions rule in their upserts (a document is replaced only by a newer event, a tombstone
 * keeps its position), and the checkpoint only moves forwards. Concurrent writers of one row are serialised by its
 * row lock, the rule evaluated against the row as the last of them left it.
 */
export class PostgresReadModelStore implements ReadModelStore {
  private readonly sql: Sql;

  private constructor(private readonly pool: PostgresPool) {
    this.sql = pool.sql;
  }

  /** Brings the schema's read models to their last step and makes the list indexes `indexedFields` names. */
  static async connect(
    url: string,
    schema: string,
    indexedFields: readonly IndexedField[],
    { asIs = false, ...options }: PostgresReadModelOptions = {},
  ): Promise<PostgresReadModelStore> {
    const pool = poolFor(url, schema, options);
    const { sql } = pool;
    try {
      await migrate(sql, schema, 'read-models', READ_MODEL_STEPS, asIs);
      if (!asIs) await underSchemaLock(sql, schema, (tx) => keepListIndexes(tx, indexedFields));
    } catch (error) {
      await pool.release();
      throw error;
    }
    return new PostgresReadModelStore(pool);
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    const [row] = await this.sql<{ position: string }[]>`
      SELECT position::text FROM projection_checkpoints WHERE projection = ${projection}`;
    return row === undefined ? undefined : BigInt(row.position);
  }

  async commit(projection: string, position: bigint, writes: DocumentWrite[], fence?: Fence): Promise<void> {
    await this.sql.begin(async (tx) => {
      if (fence !== undefined && (await leaseToken(tx, fence.lease, true)) !== fence.token) throw new FencedOffError(fence);
      // Consecutive document writes go as one statement; a blanking or a counter reads what those before it wrote.
      let run: DocumentPut[] = [];
      for (const write of writes) {
        if ('id' in write) {
          run.push(write);
          continue;
        }
        await putDocuments(tx, run, position);
        run = [];
        if ('where' in write) await blank(tx, write, position);
        else await count(tx, write);
      }
      await putDocuments(tx, run, position);
      await tx`
        INSERT INTO projection_checkpoints (projection, position) VALUES (${projection}, ${position.toString()}::numeric)
        ON CONFLICT (projection) DO UPDATE SET position = excluded.position
        WHERE projection_checkpoints.position < excluded.position`;
    });
  }

  async checkFence(fence: Fence): Promise<void> {
    if ((await leaseToken(this.sql, fence.lease, false)) !== fence.token) throw new FencedOffError(fence);
  }

  /** Documents are read back as the JSON their projection wrote: its collection's type. */
  async get<C extends string>(collection: C, id: string): Promise<DocumentOf<C> | undefined> {
    const [row] = await this.sql<{ doc: DocumentOf<C> }[]>`
      SELECT doc FROM documents WHERE collection = ${collection} AND id = ${id} AND doc IS NOT NULL`;
    return row?.doc;
  }

  async getMany<C extends string>(collection: C, ids: readonly string[]): Promise<Map<string, StoredVersion<DocumentOf<C>>>> {
    const found = new Map<string, StoredVersion<DocumentOf<C>>>();
    if (ids.length === 0) return found;
    const rows = await this.sql<{ id: string; doc: DocumentOf<C> | null; position: string }[]>`
      SELECT id, doc, position::text FROM documents WHERE collection = ${collection} AND id = ANY(${[...ids]}::text[])`;
    for (const row of rows) found.set(row.id, { doc: row.doc ?? undefined, position: BigInt(row.position) });
    return found;
  }

  async list<C extends string>(collection: C, query: ListQuery): Promise<ListPage<DocumentOf<C>>> {
    const where = whereClause(collection, query.where ?? {});
    const clauses = [where.sql];
    const params: (string | number)[] = where.params;
    const backwards = query.endingBefore !== undefined;
    const cursor = query.startingAfter ?? query.endingBefore;
    if (cursor !== undefined) {
      params.push(cursor);
      clauses.push(`id ${backwards ? '>' : '<'} $${params.length}`);
    }
    params.push(query.limit + 1);
    const rows = await this.sql.unsafe<{ doc: DocumentOf<C> }[]>(
      `SELECT doc FROM documents WHERE ${clauses.join(' AND ')} ORDER BY id ${backwards ? 'ASC' : 'DESC'} LIMIT $${params.length}`,
      params,
    );
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit).map((row) => row.doc);
    return { data: backwards ? page.reverse() : page, hasMore };
  }

  async counts(collection: string, counter: string, from: string, to: string): Promise<CountRow[]> {
    const rows = await this.sql<{ period: string; key: string; n: bigint }[]>`
      SELECT period, key, n FROM counters
      WHERE collection = ${collection} AND counter = ${counter} AND period >= ${from} AND period < ${to}`;
    return rows.map(({ period, key, n }) => ({ period, key, n: Number(n) }));
  }

  /**
   * VACUUM frees the dead row versions that overwritten and removed documents leave (MVCC keeps them until then),
   * without locking out readers or writers as VACUUM FULL would; their space is reused, not zeroed, and their
   * personal fields were sealed (docs/operations.md, "PostgreSQL"). The WAL keeps them until it is recycled.
   */
  async purge(): Promise<void> {
    await this.sql`VACUUM documents, counters`;
  }

  async reset(collections: readonly string[], checkpoints: readonly string[]): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`DELETE FROM documents WHERE collection = ANY(${[...collections]}::text[])`;
      await tx`DELETE FROM counters WHERE collection = ANY(${[...collections]}::text[])`;
      await tx`DELETE FROM projection_checkpoints WHERE projection = ANY(${[...checkpoints]}::text[])`;
    });
    await this.purge();
  }

  /**
   * One statement, timed by the server's clock (the one every replica shares): a free or expired lease passes to
   * `holder` with the next token, its holder's renews it with the same; another's leaves it and answers no row.
   */
  async acquireLease(name: string, holder: string, ttlMs: number): Promise<number | undefined> {
    const [row] = await this.sql<{ token: bigint }[]>`
      INSERT INTO leases (name, holder, token, expires_at)
      VALUES (${name}, ${holder}, 1, now() + ${ttlMs} * interval '1 millisecond')
      ON CONFLICT (name) DO UPDATE SET
        holder = excluded.holder,
        token = CASE WHEN leases.expires_at > now() THEN leases.token ELSE leases.token + 1 END,
        expires_at = excluded.expires_at
      WHERE leases.holder = excluded.holder OR leases.expires_at <= now()
      RETURNING token`;
    return row === undefined ? undefined : Number(row.token);
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.sql`UPDATE leases SET expires_at = '-infinity' WHERE name = ${name} AND holder = ${holder}`;
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  async close(): Promise<void> {
    await this.pool.release();
  }
}

/**
 * The lease's token, undefined when nobody ever took it. In a commit it is read FOR SHARE: the row stays locked
 * against a takeover until the commit's end, and a takeover under way is waited for and its token read.
 */
async function leaseToken(sql: Sql | TransactionSql, lease: string, locked: boolean): Promise<number | undefined> {
  const lock = locked ? sql`FOR SHARE` : sql``;
  const [row] = await sql<{ token: bigint }[]>`SELECT token FROM leases WHERE name = ${lease} ${lock}`;
  return row === undefined ? undefined : Number(row.token);
}

/**
 * Writes a run of documents in one upsert. One statement may touch a row once, so each document's write is the one
 * that applying the run in order would leave: the first of its newest position (a write no newer than the one
 * before it is ignored). The upsert then replaces a stored document only with a newer position.
 */
async function putDocuments(tx: TransactionSql, writes: readonly DocumentPut[], commitPosition: bigint): Promise<void> {
  if (writes.length === 0) return;
  const last = new Map<string, { write: DocumentPut; position: bigint }>();
  for (const write of writes) {
    const key = `${write.collection}\u0000${write.id}`;
    const position = write.position ?? commitPosition;
    const held = last.get(key);
    if (held === undefined || position > held.position) last.set(key, { write, position });
  }
  const rows = [...last.values()];
  await tx`
    INSERT INTO documents (collection, id, doc, position)
    SELECT w.collection, w.id, w.doc::json, w.position::numeric
    FROM unnest(${rows.map(({ write }) => write.collection)}::text[], ${rows.map(({ write }) => write.id)}::text[],
                ${rows.map(({ write }) => (write.doc === null ? null : JSON.stringify(write.doc)))}::text[],
                ${rows.map(({ position }) => position.toString())}::text[]) AS w(collection, id, doc, position)
    ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc, position = excluded.position
    WHERE documents.position < excluded.position`;
}

/**
 * Blanks the matching documents for an erasure: only `keep` and `set` stay. They take the erasure's position unless
 * they hold a newer one, so an older write cannot bring their fields back. Read FOR UPDATE: no writer comes between.
 */
async function blank(tx: TransactionSql, { collection, where, keep, set }: Blanking, position: bigint): Promise<void> {
  const clause = whereClause(collection, where);
  const rows = await tx.unsafe<{ id: string; doc: JsonDocument }[]>(
    `SELECT id, doc FROM documents WHERE ${clause.sql} FOR UPDATE`,
    clause.params,
  );
  if (rows.length === 0) return;
  const blanked = rows.map(({ doc }) => {
    const kept = Object.fromEntries(keep.filter((field) => field in doc).map((field) => [field, doc[field]]));
    return JSON.stringify({ ...kept, ...set, id: doc.id });
  });
  await tx`
    UPDATE documents SET doc = b.doc::json, position = greatest(documents.position, ${position.toString()}::numeric)
    FROM unnest(${rows.map((row) => row.id)}::text[], ${blanked}::text[]) AS b(id, doc)
    WHERE documents.collection = ${collection} AND documents.id = b.id`;
}

/**
 * Adds the row's events it has not counted (positions after the one it keeps), in one upsert: the row's lock
 * serialises two writers of it, and the second counts against what the first left.
 */
async function count(tx: TransactionSql, { collection, counter, period, key, positions }: CounterWrite): Promise<void> {
  if (positions.length === 0) return;
  const texts = positions.map((position) => position.toString());
  await tx`
    INSERT INTO counters (collection, counter, period, key, n, position)
    VALUES (${collection}, ${counter}, ${period}, ${key}, ${positions.length}, ${texts.at(-1)!}::numeric)
    ON CONFLICT (collection, counter, period, key) DO UPDATE SET
      n = counters.n + (SELECT count(*) FROM unnest(${texts}::numeric[]) AS p WHERE p > counters.position),
      position = greatest(counters.position, excluded.position)`;
}

/**
 * Documents of the collection whose top-level fields equal the given strings (tombstones never). The collection is
 * written into the SQL, checked as a name, so that the planner can use its partial list indexes.
 */
function whereClause(collection: string, where: Record<string, string>): { sql: string; params: string[] } {
  const clauses = [`collection = '${checkedName(collection)}'`, 'doc IS NOT NULL'];
  const params: string[] = [];
  for (const [field, value] of Object.entries(where)) {
    params.push(value);
    clauses.push(`(doc ->> '${checkedName(field)}') = $${params.length}`);
  }
  return { sql: clauses.join(' AND '), params };
}

/**
 * Makes the list indexes of `fields` (partial, per collection: a write pays only for its own collection's), and
 * drops those of fields no list filters on any more, which would cost every write and serve no list.
 */
async function keepListIndexes(tx: TransactionSql, fields: readonly IndexedField[]): Promise<void> {
  const wanted = new Set<string>();
  for (const { collection, field } of fields) {
    const name = `${checkedName(collection)}_by_${checkedName(field)}`;
    wanted.add(name);
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS ${name} ON documents ((doc ->> '${field}'), id)
                     WHERE collection = '${collection}' AND doc IS NOT NULL`);
  }
  const existing = await tx<{ indexname: string }[]>`
    SELECT indexname FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'documents' AND indexname LIKE '%\\_by\\_%'`;
  for (const { indexname } of existing) if (!wanted.has(indexname)) await tx.unsafe(`DROP INDEX ${checkedName(indexname)}`);
}
