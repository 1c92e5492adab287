import { type AnyBulkWriteOperation, type Db, MongoClient } from 'mongodb';
import {
  type Document,
  type DocumentWrite,
  type Fence,
  FencedOffError,
  type IndexedField,
  type ListPage,
  type ListQuery,
  type ReadModelStore,
  type StoredVersion,
} from '../../ports/read-models.js';
import {
  NOT_REMOVED,
  blanking,
  forwardCheckpoint,
  fromStored,
  guardedReplace,
  isTombstone,
  positionOf,
  takeLease,
  toStored,
  tombstone,
} from './documents.js';

const CHECKPOINTS = '_checkpoints';
const LEASES = '_leases';

type Operation = AnyBulkWriteOperation<Record<string, unknown>>;

interface Lease {
  _id: string;
  holder: string;
  token: number;
  expires_at: Date;
}

/**
 * Read models on MongoDB: one database per environment, one collection per read model. Writes are guarded
 * by the event position kept in each document (a removed document keeps a tombstone with it), and the
 * checkpoint, which only moves forwards, is written after them, so a crash in between replays events that
 * change nothing: no gap, no E11000, no transaction (no replica set) needed. For the same reason a writer
 * that lags behind another can neither roll a document back nor bring a removed one back.
 */
export class MongoReadModelStore implements ReadModelStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  /** Connects and creates the list indexes (idempotent) before the store is used. */
  static async connect(url: string, database: string, indexes: IndexedField[]): Promise<MongoReadModelStore> {
    const client = await new MongoClient(url).connect();
    const db = client.db(database);
    for (const { collection, field } of indexes) await db.collection(collection).createIndex({ [field]: 1, _id: -1 });
    return new MongoReadModelStore(client, db);
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    const found = await this.db.collection<{ _id: string; position: string }>(CHECKPOINTS).findOne({ _id: projection });
    return found ? BigInt(found.position) : undefined;
  }

  /**
   * A page of writes in one ordered bulkWrite per run of writes to the same collection (one, for a projection),
   * then the checkpoint. Without transactions the fence is read first: a deposed holder is refused before it
   * writes anything, and what it may still write while a takeover races its commit is guarded by position
   * (the same events give the same documents, and the newer holder's writes win). A checkpoint alone is only
   * ever moved forwards over documents already written, so it needs no fence.
   */
  async commit(projection: string, position: bigint, writes: DocumentWrite[], fence?: Fence): Promise<void> {
    if (fence !== undefined && writes.length > 0) {
      const lease = await this.db.collection<Lease>(LEASES).findOne({ _id: fence.lease });
      if (lease?.token !== fence.token) throw new FencedOffError(fence);
    }
    let run: { collection: string; operations: Operation[] } | undefined;
    for (const write of writes) {
      if (run?.collection !== write.collection) {
        await this.bulkWrite(run);
        run = { collection: write.collection, operations: [] };
      }
      run.operations.push(operationFor(write, position));
    }
    await this.bulkWrite(run);
    await this.db.collection<{ _id: string; position: string }>(CHECKPOINTS).updateOne({ _id: projection }, forwardCheckpoint(position), { upsert: true });
  }

  private async bulkWrite(run: { collection: string; operations: Operation[] } | undefined): Promise<void> {
    if (run !== undefined) await this.db.collection<Record<string, unknown>>(run.collection).bulkWrite(run.operations, { ordered: true });
  }

  async get(collection: string, id: string): Promise<Document | undefined> {
    const found = await this.db.collection<Record<string, unknown>>(collection).findOne({ _id: id, ...NOT_REMOVED } as never);
    return found ? fromStored(found) : undefined;
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Map<string, StoredVersion>> {
    const found = new Map<string, StoredVersion>();
    if (ids.length === 0) return found;
    const rows = await this.db.collection<Record<string, unknown>>(collection).find({ _id: { $in: [...ids] } } as never).toArray();
    // Documents are written before the checkpoint: a replay skips the events a document (or its tombstone) already holds.
    for (const row of rows) {
      found.set(String(row._id), { doc: isTombstone(row) ? undefined : fromStored(row), position: positionOf(row) });
    }
    return found;
  }

  async list(collection: string, query: ListQuery): Promise<ListPage> {
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
    const page = rows.slice(0, query.limit).map(fromStored);
    return { data: backwards ? page.reverse() : page, hasMore: rows.length > query.limit };
  }

  /** MongoDB rewrites documents in its own storage; nothing this store can force (README, "Erasure"). */
  purge(): Promise<void> {
    return Promise.resolve();
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<number | undefined> {
    const lease = await this.db.collection<Lease>(LEASES).findOneAndUpdate({ _id: name }, takeLease(holder, ttlMs), { upsert: true, returnDocument: 'after' });
    return lease?.holder === holder ? lease.token : undefined;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.db.collection<Lease>(LEASES).updateOne({ _id: name, holder }, [{ $set: { expires_at: '$$NOW' } }]);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function operationFor(write: DocumentWrite, position: bigint): Operation {
  if ('where' in write) return { updateMany: { filter: { ...write.where, ...NOT_REMOVED }, update: blanking(write.keep, write.set, position) } };
  const at = write.position ?? position;
  const stored = write.doc === null ? tombstone(write.id, at) : toStored(write.doc, at);
  return { updateOne: { filter: { _id: write.id } as never, update: guardedReplace(stored), upsert: true } };
}
