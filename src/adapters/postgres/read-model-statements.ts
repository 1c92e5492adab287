import type { DocumentOf, JsonDocument } from '../../ports/collections.js';
import type { CounterWrite, DocumentWrite, StoredVersion } from '../../ports/read-models.js';
import { compareCodeUnits } from '../../support/code-units.js';
import type { Sql, TransactionSql } from './client.js';

// The read models' statements that run inside a transaction: a projection's commit, or the projections a log folds
// into its appends' own transaction (inline-projections.ts).

/** A document write that replaces or removes one document (not a blanking, not a counter). */
type DocumentPut = Extract<DocumentWrite, { id: string }>;
type Blanking = Extract<DocumentWrite, { where: unknown }>;

/** Names put in SQL text (collections, fields of the list indexes): checked, as identifiers and literals must be. */
const NAME = /^[a-z_][a-z0-9_]*$/;

export function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`not a field name: ${name}`);
  return name;
}

/**
 * Applies `writes` in order, a commit at `position`: consecutive document writes go as one statement; a blanking or
 * a counter reads what those before it wrote.
 */
export async function applyWrites(tx: TransactionSql, writes: readonly DocumentWrite[], position: bigint): Promise<void> {
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
}

/** The stored documents and tombstones of `ids` that exist, in one read. */
export async function storedVersions<C extends string>(
  sql: Sql | TransactionSql,
  collection: C,
  ids: readonly string[],
): Promise<Map<string, StoredVersion<DocumentOf<C>>>> {
  const found = new Map<string, StoredVersion<DocumentOf<C>>>();
  if (ids.length === 0) return found;
  const rows = await sql<{ id: string; doc: DocumentOf<C> | null; position: string }[]>`
    SELECT id, doc, position::text FROM documents WHERE collection = ${collection} AND id = ANY(${[...ids]}::text[])`;
  for (const row of rows) found.set(row.id, { doc: row.doc ?? undefined, position: BigInt(row.position) });
  return found;
}

/** Moves the projections' checkpoints to `position`, each only forwards. */
export async function moveCheckpoints(tx: TransactionSql, projections: readonly string[], position: bigint): Promise<void> {
  await tx`
    INSERT INTO projection_checkpoints (projection, position)
    SELECT p, ${position.toString()}::numeric FROM unnest(${[...projections].sort()}::text[]) AS p
    ON CONFLICT (projection) DO UPDATE SET position = excluded.position
    WHERE projection_checkpoints.position < excluded.position`;
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
  // In key order: two transactions writing the same documents lock their rows in the same order, never each other's first.
  const rows = [...last.entries()].sort(([a], [b]) => compareCodeUnits(a, b)).map(([, held]) => held);
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
export function whereClause(collection: string, where: Record<string, string>): { sql: string; params: string[] } {
  const clauses = [`collection = '${checkedName(collection)}'`, 'doc IS NOT NULL'];
  const params: string[] = [];
  for (const [field, value] of Object.entries(where)) {
    params.push(value);
    clauses.push(`(doc ->> '${checkedName(field)}') = $${params.length}`);
  }
  return { sql: clauses.join(' AND '), params };
}
