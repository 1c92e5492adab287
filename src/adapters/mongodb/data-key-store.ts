import { randomInt } from 'node:crypto';
import { Binary, type ClientSession, type Collection, MongoServerError } from 'mongodb';
import { type BlobKind, type Rewrap, type StoredBlob, SubjectErasedError, type WrappedKeyStore } from '../../ports/data-keys.js';
import { connectMongo, type MongoConnection, type MongoSettings } from './client.js';

interface KeyDocument {
  _id: string;
  key: Binary | null;
  created_at: string;
  destroyed_at: string | null;
}

/** `settings` holds the secrets (`<name>_secret`, value), the master key record and the creation fences. */
interface SettingDocument {
  _id: string;
  value?: Binary;
  id?: string;
  writes?: number;
}

const DUPLICATE_KEY = 11000;
const MASTER_KEY = 'master_key';
/**
 * A blob is made in a transaction that reads the master key record and writes one of these documents, picked
 * at random; recording a new master key writes all of them in its transaction. So a blob made with the old id
 * either committed before the record changed or conflicts with it and is made again with the new id; and
 * concurrent makers rarely conflict with each other, as they would on one shared document.
 */
const FENCES = 16;
const fenceId = (n: number) => `key_creation_fence:${n}`;
const secretId = (name: string) => `${name}_secret`;
const bytes = (binary: Binary) => Buffer.from(binary.value());

/**
 * Wrapped data keys in the environment's MongoDB database (`data_keys`, and `settings` for the rest), beside
 * the read models and apart from the log. A destroyed key's field is set to null; its wrapped bytes stay in the
 * oplog and in backups until they roll over, useless without the master key (docs/privacy.md, "Erasure"). Every write
 * waits for a majority (client.ts): a key that a failover rolled back would leave what it sealed unreadable for
 * ever, and a destruction rolled back would undo an erasure.
 */
export class MongoWrappedKeyStore implements WrappedKeyStore {
  readonly location: string;
  private readonly keys: Collection<KeyDocument>;
  private readonly settings: Collection<SettingDocument>;

  private constructor(
    private readonly connection: MongoConnection,
    database: string,
  ) {
    const db = connection.db(database);
    this.location = `the MongoDB database ${database}`;
    this.keys = db.collection<KeyDocument>('data_keys');
    this.settings = db.collection<SettingDocument>('settings');
  }

  static async connect(settings: MongoSettings, database: string): Promise<MongoWrappedKeyStore> {
    return new MongoWrappedKeyStore(await connectMongo(settings), database);
  }

  async keyFor(subjectId: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer> {
    const key = await this.made(
      async (session) => {
        const found = await this.keys.findOne({ _id: subjectId }, { session });
        return found === null ? undefined : found.key && bytes(found.key);
      },
      async (blob, session) => {
        await this.keys.insertOne(
          { _id: subjectId, key: new Binary(blob), created_at: new Date().toISOString(), destroyed_at: null },
          { session },
        );
      },
      fresh,
    );
    if (key === null) throw new SubjectErasedError(subjectId);
    return key;
  }

  async find(subjectId: string): Promise<Buffer | undefined> {
    const found = await this.keys.findOne({ _id: subjectId });
    return found?.key ? bytes(found.key) : undefined;
  }

  async destroy(subjectId: string, at: string): Promise<void> {
    await upsertOnce(() =>
      this.keys.updateOne(
        { _id: subjectId },
        [{ $set: { key: null, created_at: { $ifNull: ['$created_at', at] }, destroyed_at: { $ifNull: ['$destroyed_at', at] } } }],
        { upsert: true },
      ),
    );
  }

  async secret(name: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer> {
    const value = await this.made(
      async (session) => {
        const found = await this.settings.findOne({ _id: secretId(name) }, { session });
        return found?.value && bytes(found.value);
      },
      async (blob, session) => {
        await this.settings.insertOne({ _id: secretId(name), value: new Binary(blob) }, { session });
      },
      fresh,
    );
    return value!;
  }

  /**
   * What `existing` finds, or a blob made by `fresh` and stored by `store`: in a transaction that reads the
   * master key record and writes a fence where the deployment runs transactions. Two processes making the same
   * blob at once: one stores it, the other fails with E11000 and, tried again, finds it.
   */
  private async made(
    existing: (session?: ClientSession) => Promise<Buffer | null | undefined>,
    store: (blob: Buffer, session?: ClientSession) => Promise<void>,
    fresh: (masterKeyId: string) => Buffer,
  ): Promise<Buffer | null> {
    const found = await existing();
    if (found !== undefined) return found;
    const attempt = async (session?: ClientSession) => {
      const again = await existing(session);
      if (again !== undefined) return again;
      const record = await this.settings.findOne({ _id: MASTER_KEY }, { session });
      if (record?.id === undefined) throw new Error(`${this.location} records no master key yet: data keys cannot be made`);
      const blob = fresh(record.id);
      if (session !== undefined)
        await this.settings.updateOne({ _id: fenceId(randomInt(FENCES)) }, { $inc: { writes: 1 } }, { upsert: true, session });
      await store(blob, session);
      return blob;
    };
    // A standalone server (NATURE_MONGODB_ALLOW_WEAK_WRITES) runs no transactions: the blob is not fenced (docs/operations.md).
    return upsertOnce(() => (this.connection.deployment.transactions ? this.connection.transaction(attempt) : attempt()));
  }

  async masterKeyId(): Promise<string | undefined> {
    return (await this.settings.findOne({ _id: MASTER_KEY }))?.id;
  }

  async recordMasterKeyId(id: string): Promise<void> {
    const record = async (session?: ClientSession) => {
      await this.settings.updateOne({ _id: MASTER_KEY }, { $set: { id } }, { upsert: true, session });
      if (session === undefined) return;
      for (let n = 0; n < FENCES; n += 1)
        await this.settings.updateOne({ _id: fenceId(n) }, { $inc: { writes: 1 } }, { upsert: true, session });
    };
    await (this.connection.deployment.transactions ? this.connection.transaction(record) : record());
  }

  async list(kind: BlobKind, after: string | undefined, limit: number): Promise<StoredBlob[]> {
    if (kind === 'subject') {
      const found = await this.keys
        .find({ _id: { $gt: after ?? '' }, key: { $type: 'binData' } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return found.map((document) => ({ kind, name: document._id, blob: bytes(document.key!) }));
    }
    const found = await this.settings
      .find({ _id: { $gt: after === undefined ? '' : secretId(after) }, value: { $type: 'binData' } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return found.map((document) => ({ kind, name: document._id.slice(0, -'_secret'.length), blob: bytes(document.value!) }));
  }

  async rewrap(changes: Rewrap[]): Promise<number> {
    const subjects = changes.filter((change) => change.kind === 'subject');
    const secrets = changes.filter((change) => change.kind === 'secret');
    let applied = 0;
    if (subjects.length > 0) {
      const result = await this.keys.bulkWrite(
        subjects.map(({ name, from, to }) => ({
          updateOne: { filter: { _id: name, key: new Binary(from) }, update: { $set: { key: new Binary(to) } } },
        })),
        { ordered: false },
      );
      applied += result.modifiedCount;
    }
    if (secrets.length > 0) {
      const result = await this.settings.bulkWrite(
        secrets.map(({ name, from, to }) => ({
          updateOne: { filter: { _id: secretId(name), value: new Binary(from) }, update: { $set: { value: new Binary(to) } } },
        })),
        { ordered: false },
      );
      applied += result.modifiedCount;
    }
    return applied;
  }

  /** Nothing to do here: the oplog and the storage engine's history drop replaced blobs as they roll over (docs/operations.md). */
  async compact(): Promise<void> {}

  ping(): Promise<void> {
    return this.connection.ping();
  }

  close(): Promise<void> {
    return this.connection.release();
  }
}

/** Two concurrent upserts of one _id: one inserts, the other fails with E11000 and, tried again, finds it. */
async function upsertOnce<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return operation();
    throw error;
  }
}
