import { randomBytes } from 'node:crypto';
import { Binary, type Collection, MongoServerError } from 'mongodb';
import { type DataKeyStore, SubjectErasedError } from '../../ports/data-keys.js';
import { type MongoConnection, type MongoSettings, connectMongo } from './client.js';

interface KeyDocument {
  _id: string;
  key: Binary | null;
  created_at: string;
  destroyed_at: string | null;
}

const DUPLICATE_KEY = 11000;

/**
 * Data keys in the environment's MongoDB database (`data_keys`), beside the read models and apart from the
 * log. A destroyed key's field is set to null; MongoDB reclaims the old bytes with its storage, so backups
 * taken before an erasure must expire on their own schedule (README, "Erasure"). Every write waits for a
 * majority (client.ts): a key that a failover rolled back would leave what it sealed unreadable for ever, and a
 * destruction rolled back would undo an erasure.
 */
export class MongoDataKeyStore implements DataKeyStore {
  private readonly keys: Collection<KeyDocument>;
  private readonly settings: Collection<{ _id: string; value: Binary }>;

  private constructor(
    private readonly connection: MongoConnection,
    database: string,
  ) {
    const db = connection.db(database);
    this.keys = db.collection<KeyDocument>('data_keys');
    this.settings = db.collection<{ _id: string; value: Binary }>('settings');
  }

  static async connect(settings: MongoSettings, database: string): Promise<MongoDataKeyStore> {
    return new MongoDataKeyStore(await connectMongo(settings), database);
  }

  async keyFor(subjectId: string): Promise<Buffer> {
    const found = await upsertOnce(() =>
      this.keys.findOneAndUpdate(
        { _id: subjectId },
        { $setOnInsert: { key: new Binary(randomBytes(32)), created_at: new Date().toISOString(), destroyed_at: null } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    if (!found?.key) throw new SubjectErasedError(subjectId);
    return Buffer.from(found.key.buffer);
  }

  async find(subjectId: string): Promise<Buffer | undefined> {
    const found = await this.keys.findOne({ _id: subjectId });
    return found?.key ? Buffer.from(found.key.buffer) : undefined;
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

  async environmentSecret(): Promise<Buffer> {
    const found = await upsertOnce(() =>
      this.settings.findOneAndUpdate(
        { _id: 'environment_secret' },
        { $setOnInsert: { value: new Binary(randomBytes(32)) } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    return Buffer.from(found!.value.buffer);
  }

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
