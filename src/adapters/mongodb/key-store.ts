import type { Collection } from 'mongodb';
import type { ActivityRecord } from '../../domain/accounts.js';
import type { ApiKeyRecord } from '../../domain/api-keys.js';
import type { KeyStore } from '../../ports/key-store.js';
import { type ActivityDocument, atomically, recordActivity } from './activity.js';
import { type MongoConnection, type MongoSettings, withMongo } from './client.js';

/**
 * A key as stored: the record with `_id` for its id. A rotation's replacement is inserted `pending` first and
 * counts only once its predecessor names it in `rotated_to`: that one update of the old key is the moment
 * the rotation happens, so a crash half-way leaves either the old key working or the new one, never both,
 * and no transaction (no replica set) is needed.
 */
// `origins` is absent from keys stored before pk keys had allowed origins: they allow any origin.
type KeyDocument = Omit<ApiKeyRecord, 'id' | 'origins'> & { _id: string; origins?: string[]; pending?: true; rotated_to?: string };

/** The database that holds what both environments share (each environment has its own: nature_sandbox, nature_production). */
export const KEYS_DATABASE = 'nature_keys';

/**
 * API keys in MongoDB (`nature_keys.api_keys`): SHA-256 hashes only, never a raw key, beside the read models.
 * Writes wait for a majority (client.ts): a revocation that a failover rolled back would let the key in again.
 * A change and the activity entry recording it commit in one transaction; a standalone server (accepted with
 * NATURE_MONGODB_ALLOW_WEAK_WRITES) has none, so there the entry follows the change and a crash between loses it.
 */
export class MongoKeyStore implements KeyStore {
  private constructor(
    private readonly connection: MongoConnection,
    private readonly keys: Collection<KeyDocument>,
    private readonly activity_: Collection<ActivityDocument>,
  ) {}

  /** Connects (the process's one client) and creates the unique index on hashes (idempotent). */
  static connect(settings: MongoSettings, database = KEYS_DATABASE): Promise<MongoKeyStore> {
    return withMongo(settings, async (connection) => {
      const keys = connection.db(database).collection<KeyDocument>('api_keys');
      await keys.createIndex({ hash: 1 }, { unique: true });
      return new MongoKeyStore(connection, keys, connection.db(database).collection<ActivityDocument>('activity'));
    });
  }

  async insert(record: ApiKeyRecord, activity?: ActivityRecord): Promise<void> {
    await atomically(this.connection, async (session) => {
      await this.keys.insertOne(toDocument(record), { session });
      await recordActivity(this.activity_, activity, session);
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.settled(await this.keys.findOne({ hash }));
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return this.settled(await this.keys.findOne({ _id: id }));
  }

  async list(): Promise<ApiKeyRecord[]> {
    const documents = await this.keys.find().sort({ _id: 1 }).toArray();
    const rotatedTo = new Set(documents.flatMap((document) => (document.rotated_to === undefined ? [] : [document.rotated_to])));
    return documents.filter((document) => !document.pending || rotatedTo.has(document._id)).map(fromDocument);
  }

  async revoke(id: string, at: string, reason: 'revoked' | 'rotated', activity?: ActivityRecord): Promise<ApiKeyRecord | undefined> {
    // Only a key that counts: not the replacement of a rotation that never happened.
    if ((await this.get(id)) === undefined) return undefined;
    await atomically(this.connection, async (session) => {
      const revoked = await this.keys.updateOne(
        // A rolled key still in its grace period (its expiry after `at`, as ISO strings compare) is revoked too.
        { _id: id, $or: [{ revoked_at: null }, { revoked_reason: 'rotated', revoked_at: { $gt: at } }] },
        { $set: { revoked_at: at, revoked_reason: reason }, $unset: { pending: '' } },
        { session },
      );
      if (revoked.modifiedCount === 1) await recordActivity(this.activity_, activity, session);
    });
    return this.get(id);
  }

  async rotate(oldId: string, replacement: ApiKeyRecord, at: string, activity?: ActivityRecord): Promise<void> {
    const old = await this.get(oldId);
    if (old === undefined || old.revoked_at !== null) throw new Error(`key ${oldId} is not an active key`);
    await atomically(this.connection, async (session) => {
      await this.keys.insertOne({ ...toDocument(replacement), pending: true }, { session });
      const rotated = await this.keys.updateOne(
        { _id: oldId, revoked_at: null },
        { $set: { revoked_at: at, revoked_reason: 'rotated', rotated_to: replacement.id }, $unset: { pending: '' } },
        { session },
      );
      if (rotated.modifiedCount !== 1) {
        await this.keys.deleteOne({ _id: replacement.id, pending: true }, { session });
        throw new Error(`key ${oldId} is not an active key`);
      }
      await recordActivity(this.activity_, activity, session);
      // Tidying only: the replacement already counts, its predecessor names it.
      await this.keys.updateOne({ _id: replacement.id }, { $unset: { pending: '' } }, { session });
    });
  }

  ping(): Promise<void> {
    return this.connection.ping();
  }

  async markUsed(hours: ReadonlyMap<string, string>): Promise<void> {
    if (hours.size === 0) return;
    await this.keys.bulkWrite(
      [...hours].map(([id, at]) => ({
        updateOne: {
          filter: { _id: id, $or: [{ last_used_at: null }, { last_used_at: { $exists: false } }, { last_used_at: { $lt: at } }] },
          update: { $set: { last_used_at: at } },
        },
      })),
      { ordered: false },
    );
  }

  close(): Promise<void> {
    return this.connection.release();
  }

  /** The record as it stands, or undefined for a rotation's replacement whose rotation never happened. */
  private async settled(document: KeyDocument | null): Promise<ApiKeyRecord | undefined> {
    if (document === null) return undefined;
    if (document.pending) {
      const predecessor = document.rotated_from === null ? null : await this.keys.findOne({ _id: document.rotated_from });
      if (predecessor?.rotated_to !== document._id) return undefined;
    }
    return fromDocument(document);
  }
}

function toDocument({ id, ...rest }: ApiKeyRecord): KeyDocument {
  return { _id: id, ...rest };
}

function fromDocument({ _id, pending: _pending, rotated_to: _rotatedTo, ...rest }: KeyDocument): ApiKeyRecord {
  // Keys stored before last use was kept have no last_used_at.
  return { id: _id, ...rest, scopes: [...rest.scopes], origins: [...(rest.origins ?? [])], last_used_at: rest.last_used_at ?? null };
}
