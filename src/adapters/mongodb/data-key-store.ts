import { randomBytes } from 'node:crypto';
import { Binary, type Collection, type Db, MongoClient, MongoServerError } from 'mongodb';
import { type DataKeyStore, SubjectErasedError } from '../../ports/data-keys.js';

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
 * taken before an erasure must expire on their own schedule (README, "Erasure").
 */
export class MongoDataKeyStore implements DataKeyStore {
  private readonly keys: Collection<KeyDocument>;
  private readonly settings: Collection<{ _id: string; value: Binary }>;

  private constructor(
    private readonly client: MongoClient,
    db: Db,
  ) {
    this.keys = db.collection<KeyDocument>('data_keys');
    this.settings = db.collection<{ _id: string; value: Binary }>('settings');
  }

  static async connect(url: string, database: string): Promise<MongoDataKeyStore> {
    const client = await new MongoClient(url).connect();
    return new MongoDataKeyStore(client, client.db(database));
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

  async ping(): Promise<void> {
    await this.client.db('admin').command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
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
