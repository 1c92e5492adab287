import type { ClientSession, Collection, Db } from 'mongodb';
import type { DocumentOf } from '../../ports/collections.js';
import {
  type CountRow,
  type DocumentWrite,
  type Fence,
  FencedOffError,
  type ListPage,
  type ListQuery,
  type ReadModelLayout,
  type ReadModelRebuilds,
  type ReadModelStore,
  type Rebuild,
  type StoredVersion,
} from '../../ports/read-models.js';
import { FORMAT_MARKS } from '../data-versions.js';
import { type MongoConnection, type MongoSettings, withMongo } from './client.js';
import { COUNTERS, type CommitPlan, commitPlan, fromStored, isTombstone, NOT_REMOVED, positionOf, takeLease } from './documents.js';
import { type MongoStep, migrate } from './migrations.js';

const CHECKPOINTS = '_checkpoints';
const LEASES = '_leases';

interface Lease {
  _id: string;
  holder: string;
  token: number;
  expires_at: Date;
  /** Fenced commits made under the lease: each one's write of the lease is what makes a takeover conflict with it. */
  commits?: number;
}

/** The read models' steps, numbered as the SQLite file's (read-model-store.ts there); collections are made on first write. */
function readModelSteps({ all, usage }: ReadModelRebuilds): MongoStep[] {
  return [
    { version: 1, does: 'documents, checkpoints and leases as data-v1 made them', run: async () => {} },
    { version: 2, does: 'usage counters', run: async () => {} },
    { version: 3, does: 'read models rebuilt with their personal fields sealed', run: (db) => rebuild(db, all, FORMAT_MARKS.sealed) },
    { version: 4, does: 'usage rebuilt as counters, not bucket documents', run: (db) => rebuild(db, usage, FORMAT_MARKS.usage) },
  ];
}

/**
 * Removes what the projections rebuild from the log, unless the mark of that rebuild (from before steps were
 * numbered) says it was done; the mark goes either way. Each removal may run again: a step cut short is.
 */
async function rebuild(db: Db, { collections, checkpoints }: Rebuild, mark: string): Promise<void> {
  const stored = db.collection<{ _id: string }>(CHECKPOINTS);
  if ((await stored.findOne({ _id: mark })) === null) {
    for (const collection of collections) await db.collection(collection).deleteMany({});
    await db.collection(COUNTERS).deleteMany({ collection: { $in: [...collections] } });
    await stored.deleteMany({ _id: { $in: [...checkpoints] } });
  }
  await stored.deleteOne({ _id: mark });
}

/**
 * Read models on MongoDB: one database per environment, one collection per read model. A commit writes its
 * documents and checkpoint in one transaction, opened under a fence by a write of the lease that matches only
 * the fence's token. Writes are also guarded by the event position kept in each document (a removed document
 * keeps a tombstone with it), and the checkpoint only moves forwards, so a writer that lags behind another can
 * neither roll a document back nor bring a removed one back; on a standalone server (no transactions, accepted
 * with NATURE_MONGODB_ALLOW_WEAK_WRITES) those guards are what is left: the documents, then the checkpoint, after
 * a read of the fence.
 */
export class MongoReadModelStore implements ReadModelStore {
  private readonly checkpoints: Collection<{ _id: string; position: string }>;
  private readonly leases: Collection<Lease>;

  private constructor(
    private readonly connection: MongoConnection,
    private readonly db: Db,
  ) {
    this.checkpoints = db.collection(CHECKPOINTS);
    this.leases = db.collection(LEASES);
  }

  /**
   * Connects (the process's one client), runs the store's steps (or, `asIs`, throws StoreBehindError when one is
   * due) and creates the list indexes (idempotent) before the store is used.
   */
  static connect(
    settings: MongoSettings,
    database: string,
    { indexedFields, rebuilds }: ReadModelLayout,
    asIs = false,
  ): Promise<MongoReadModelStore> {
    return withMongo(settings, async (connection) => {
      const db = connection.db(database);
      await migrate(db, 'read-models', readModelSteps(rebuilds), asIs);
      for (const { collection, field } of indexedFields) await db.collection(collection).createIndex({ [field]: 1, _id: -1 });
      await db.collection(COUNTERS).createIndex({ collection: 1, counter: 1, period: 1 });
      return new MongoReadModelStore(connection, db);
    });
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    const found = await this.checkpoints.findOne({ _id: projection });
    return found ? BigInt(found.position) : undefined;
  }

  async commit(projection: string, position: bigint, writes: DocumentWrite[], fence?: Fence): Promise<void> {
    const plan = commitPlan(projection, position, writes, fence);
    if (!this.connection.deployment.transactions) {
      if (fence !== undefined) await this.checkFence(fence);
      return this.write(plan);
    }
    await this.connection.transaction(async (session) => {
      const hold = plan.fence;
      if (hold !== undefined && (await this.leases.updateOne(hold.filter, hold.update, { session })).matchedCount === 0) {
        throw new FencedOffError({ lease: hold.filter._id, token: hold.filter.token });
      }
      await this.write(plan, session);
    });
  }

  /** The documents, then the checkpoint; in `session`'s transaction when there is one. */
  private async write({ runs, checkpoint }: CommitPlan, session?: ClientSession): Promise<void> {
    for (const run of runs)
      await this.db.collection<Record<string, unknown>>(run.collection).bulkWrite(run.operations, { ordered: true, session });
    await this.checkpoints.updateOne(checkpoint.filter, checkpoint.update, { upsert: true, session });
  }

  /** A majority read of the lease (the database's read concern): a token that a failover may still roll back does not count. */
  async checkFence(fence: Fence): Promise<void> {
    const lease = await this.leases.findOne({ _id: fence.lease });
    if (lease?.token !== fence.token) throw new FencedOffError(fence);
  }

  async get<C extends string>(collection: C, id: string): Promise<DocumentOf<C> | undefined> {
    const found = await this.db.collection<Record<string, unknown>>(collection).findOne({ _id: id, ...NOT_REMOVED } as never);
    return found ? fromStored<DocumentOf<C>>(found) : undefined;
  }

  async getMany<C extends string>(collection: C, ids: readonly string[]): Promise<Map<string, StoredVersion<DocumentOf<C>>>> {
    const found = new Map<string, StoredVersion<DocumentOf<C>>>();
    if (ids.length === 0) return found;
    const rows = await this.db
      .collection<Record<string, unknown>>(collection)
      .find({ _id: { $in: [...ids] } } as never)
      .toArray();
    // Without transactions documents are written before the checkpoint: a replay skips the events a document (or its tombstone) already holds.
    for (const row of rows) {
      found.set(String(row._id), { doc: isTombstone(row) ? undefined : fromStored<DocumentOf<C>>(row), position: positionOf(row) });
    }
    return found;
  }

  async list<C extends string>(collection: C, query: ListQuery): Promise<ListPage<DocumentOf<C>>> {
    const backwards = query.endingBefore !== undefined;
    const filter: Record<string, unknown> = { ...query.where, ...NOT_REMOVED };
    if (query.startingAfter !== undefined) filter._id = { $lt: query.startingAfter };
    else if (backwards) filter._id = { $gt: query.endingBefore };
    const rows = await this.db
      .collection<Record<string, unknown>>(collection)
      .find(filter)
      .sort({ _id: backwards ? 1 : -1 })
      .limit(query.limit + 1)
      .toArray();
    const page = rows.slice(0, query.limit).map((row) => fromStored<DocumentOf<C>>(row));
    return { data: backwards ? page.reverse() : page, hasMore: rows.length > query.limit };
  }

  async counts(collection: string, counter: string, from: string, to: string): Promise<CountRow[]> {
    const rows = await this.db
      .collection<CountRow & { collection: string; counter: string }>(COUNTERS)
      .find({ collection, counter, period: { $gte: from, $lt: to } }, { projection: { _id: 0, period: 1, key: 1, n: 1 } })
      .toArray();
    return rows.map(({ period, key, n }) => ({ period, key, n }));
  }

  /** MongoDB rewrites documents in its own storage; nothing this store can force (docs/privacy.md, "Erasure"). */
  purge(): Promise<void> {
    return Promise.resolve();
  }

  /** Documents first: a reset cut short by a crash is done again, since the caller marks it done only afterwards. */
  async reset(collections: readonly string[], checkpoints: readonly string[]): Promise<void> {
    for (const collection of collections) await this.db.collection(collection).deleteMany({});
    await this.db.collection(COUNTERS).deleteMany({ collection: { $in: [...collections] } });
    await this.checkpoints.deleteMany({ _id: { $in: [...checkpoints] } });
  }

  /** Written with a majority's acknowledgement: a lease that a failover rolled back would let two leaders hold one token. */
  async acquireLease(name: string, holder: string, ttlMs: number): Promise<number | undefined> {
    const lease = await this.leases.findOneAndUpdate({ _id: name }, takeLease(holder, ttlMs), { upsert: true, returnDocument: 'after' });
    return lease?.holder === holder ? lease.token : undefined;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.leases.updateOne({ _id: name, holder }, [{ $set: { expires_at: '$$NOW' } }]);
  }

  ping(): Promise<void> {
    return this.connection.ping();
  }

  close(): Promise<void> {
    return this.connection.release();
  }
}
