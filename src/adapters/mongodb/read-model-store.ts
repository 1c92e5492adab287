import { type AnyBulkWriteOperation, type Db, MongoClient } from 'mongodb';
import type { Document, DocumentWrite, IndexedField, ListPage, ListQuery, ReadModelStore, StoredVersion } from '../../ports/read-models.js';
import { blanking, fromStored, guardedDeleteFilter, guardedReplace, positionKey, positionOf, toStored } from './documents.js';

const CHECKPOINTS = '_checkpoints';

type Operation = AnyBulkWriteOperation<Record<string, unknown>>;

/**
 * Read models on MongoDB: one database per environment, one collection per read model. Writes are guarded
 * by the event position kept in each document, and the checkpoint is written after them, so a crash in
 * between replays events that change nothing: no gap, no E11000, no transaction (no replica set) needed.
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

  /** A page of writes in one ordered bulkWrite per run of writes to the same collection (one, for a projection), then the checkpoint. */
  async commit(projection: string, position: bigint, writes: DocumentWrite[]): Promise<void> {
    let run: { collection: string; operations: Operation[] } | undefined;
    for (const write of writes) {
      if (run?.collection !== write.collection) {
        await this.bulkWrite(run);
        run = { collection: write.collection, operations: [] };
      }
      run.operations.push(operationFor(write, position));
    }
    await this.bulkWrite(run);
    await this.db
      .collection<{ _id: string; position: string }>(CHECKPOINTS)
      .updateOne({ _id: projection }, { $set: { position: positionKey(position) } }, { upsert: true });
  }

  private async bulkWrite(run: { collection: string; operations: Operation[] } | undefined): Promise<void> {
    if (run !== undefined) await this.db.collection<Record<string, unknown>>(run.collection).bulkWrite(run.operations, { ordered: true });
  }

  async get(collection: string, id: string): Promise<Document | undefined> {
    const found = await this.db.collection<Record<string, unknown>>(collection).findOne({ _id: id } as never);
    return found ? fromStored(found) : undefined;
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Map<string, StoredVersion>> {
    const found = new Map<string, StoredVersion>();
    if (ids.length === 0) return found;
    const rows = await this.db.collection<Record<string, unknown>>(collection).find({ _id: { $in: [...ids] } } as never).toArray();
    // Documents are written before the checkpoint: a replay skips the events a document already holds.
    for (const row of rows) {
      const doc = fromStored(row);
      found.set(doc.id, { doc, position: positionOf(row) });
    }
    return found;
  }

  async list(collection: string, query: ListQuery): Promise<ListPage> {
    const backwards = query.endingBefore !== undefined;
    const filter: Record<string, unknown> = { ...query.where };
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

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function operationFor(write: DocumentWrite, position: bigint): Operation {
  if ('where' in write) return { updateMany: { filter: write.where, update: blanking(write.keep, write.set, position) } };
  const at = write.position ?? position;
  if (write.doc === null) return { deleteOne: { filter: guardedDeleteFilter(write.id, at) as never } };
  return { updateOne: { filter: { _id: write.id } as never, update: guardedReplace(toStored(write.doc, at)), upsert: true } };
}
