import { type Collection, MongoClient, MongoServerError } from 'mongodb';
import type { Claim, ClaimRequest, IdempotencyStore } from '../../ports/idempotency.js';

interface KeyDocument {
  _id: string;
  fingerprint: string;
  response: string | null;
  locked_until: Date;
  /** A TTL index removes the document some time after this; until then claims treat it as absent. */
  expires_at: Date;
}

const DUPLICATE_KEY = 11000;

/** Idempotency keys in the environment's MongoDB database (`idempotency_keys`), beside the read models. */
export class MongoIdempotencyStore implements IdempotencyStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly keys: Collection<KeyDocument>,
  ) {}

  static async connect(url: string, database: string): Promise<MongoIdempotencyStore> {
    const client = await new MongoClient(url).connect();
    const keys = client.db(database).collection<KeyDocument>('idempotency_keys');
    await keys.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
    return new MongoIdempotencyStore(client, keys);
  }

  async claim({ key, fingerprint, now, leaseMs, ttlMs }: ClaimRequest): Promise<Claim> {
    // The upsert takes _id from the filter; $set may not name it.
    const fresh: Omit<KeyDocument, '_id'> = {
      fingerprint,
      response: null,
      locked_until: new Date(now.getTime() + leaseMs),
      expires_at: new Date(now.getTime() + ttlMs),
    };
    // Take the key if it is free, expired, or held by a request whose lease ran out; one writer wins.
    const takeable = {
      _id: key,
      $or: [{ expires_at: { $lte: now } }, { fingerprint, response: null, locked_until: { $lte: now } }],
    };
    try {
      const taken = await this.keys.findOneAndUpdate(takeable, { $set: fresh }, { upsert: true, returnDocument: 'after' });
      if (taken !== null) return { outcome: 'claimed' };
    } catch (error) {
      // The upsert met a live document with the same _id: it belongs to someone else.
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
    const held = await this.keys.findOne({ _id: key });
    if (held === null) return this.claim({ key, fingerprint, now, leaseMs, ttlMs });
    if (held.fingerprint !== fingerprint) return { outcome: 'reused' };
    return held.response !== null ? { outcome: 'replay', response: held.response } : { outcome: 'in_use' };
  }

  async complete(key: string, response: string): Promise<void> {
    await this.keys.updateOne({ _id: key }, { $set: { response, locked_until: new Date(0) } });
  }

  async release(key: string): Promise<void> {
    await this.keys.deleteOne({ _id: key, response: null });
  }

  async ping(): Promise<void> {
    await this.keys.findOne({ _id: '' });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
