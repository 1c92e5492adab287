import { randomUUID } from 'node:crypto';
import { type Collection, MongoServerError } from 'mongodb';
import type { Claim, ClaimRequest, IdempotencyStore } from '../../ports/idempotency.js';
import { type MongoConnection, type MongoSettings, withMongo } from './client.js';

interface KeyDocument {
  _id: string;
  fingerprint: string;
  /** Who runs the request: only it completes or releases the key (absent on keys stored before holders were kept). */
  holder?: string;
  response: string | null;
  locked_until: Date;
  /** A TTL index removes the document some time after this; until then claims treat it as absent. */
  expires_at: Date;
}

const DUPLICATE_KEY = 11000;

/** What a live key another request holds answers this one: `unscoped` when it was stored before keys were scoped. */
function heldBy(held: KeyDocument, fingerprint: string, unscoped: boolean): Claim {
  if (held.fingerprint !== fingerprint) return { outcome: 'reused' };
  if (held.response === null) return { outcome: 'in_use' };
  return { outcome: 'replay', response: held.response, ...(unscoped && { unscoped: true as const }) };
}

/** Idempotency keys in the environment's MongoDB database (`idempotency_keys`), beside the read models. */
export class MongoIdempotencyStore implements IdempotencyStore {
  private constructor(
    private readonly connection: MongoConnection,
    private readonly keys: Collection<KeyDocument>,
  ) {}

  static connect(settings: MongoSettings, database: string): Promise<MongoIdempotencyStore> {
    return withMongo(settings, async (connection) => {
      const keys = connection.db(database).collection<KeyDocument>('idempotency_keys');
      await keys.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
      return new MongoIdempotencyStore(connection, keys);
    });
  }

  async claim({ key, unscopedKey, fingerprint, now, leaseMs, ttlMs }: ClaimRequest): Promise<Claim> {
    if (unscopedKey !== undefined) {
      const before = await this.keys.findOne({ _id: unscopedKey, expires_at: { $gt: now } });
      // A request that died holding it (its lease ran out) is run again under the scoped key.
      if (before !== null && (before.fingerprint !== fingerprint || before.response !== null || before.locked_until > now))
        return heldBy(before, fingerprint, true);
    }
    const holder = randomUUID();
    // The upsert takes _id from the filter; $set may not name it.
    const fresh: Omit<KeyDocument, '_id'> = {
      fingerprint,
      holder,
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
      if (taken !== null) return { outcome: 'claimed', holder };
    } catch (error) {
      // The upsert met a live document with the same _id: it belongs to someone else.
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
    }
    const held = await this.keys.findOne({ _id: key });
    // A majority read misses a claim that no majority acknowledged yet (or one let go just now): a request with it is running.
    return held === null ? { outcome: 'in_use' } : heldBy(held, fingerprint, false);
  }

  async complete(key: string, holder: string, response: string): Promise<void> {
    await this.keys.updateOne({ _id: key, holder, response: null }, { $set: { response, locked_until: new Date(0) } });
  }

  async release(key: string, holder: string): Promise<void> {
    await this.keys.deleteOne({ _id: key, holder, response: null });
  }

  async ping(): Promise<void> {
    await this.keys.findOne({ _id: '' });
  }

  close(): Promise<void> {
    return this.connection.release();
  }
}
