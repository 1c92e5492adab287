import type { DocumentOf } from '../../ports/collections.js';
import {
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
import { applyWrites, checkedName, moveCheckpoints, storedVersions, whereClause } from './read-model-statements.js';
import { READ_MODEL_STEPS } from './read-models-schema.js';

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
      await applyWrites(tx, writes, position);
      await moveCheckpoints(tx, [projection], position);
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

  getMany<C extends string>(collection: C, ids: readonly string[]): Promise<Map<string, StoredVersion<DocumentOf<C>>>> {
    return storedVersions(this.sql, collection, ids);
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
