import { type Collection, type Filter, MongoServerError } from 'mongodb';
import { isRoute, type RequestFilter, type RequestLogStore, type RequestPage, type RequestRecord } from '../../ports/request-log.js';
import { type MongoConnection, type MongoSettings, withMongo } from './client.js';

/** A record as kept: its id as `_id`, its time as a date, which the TTL index reads. */
interface RequestDocument extends Omit<RequestRecord, 'id' | 'at'> {
  _id: string;
  at: Date;
}

const INDEX_OPTIONS_CONFLICT = 85;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const recordOf = ({ _id, at, ...rest }: RequestDocument): RequestRecord => ({ id: _id, at: at.getTime(), ...rest });

function query(filter: RequestFilter, before: string | undefined): Filter<RequestDocument> {
  const at: { $gte?: Date; $lt?: Date } = {};
  if (filter.since !== undefined) at.$gte = new Date(filter.since);
  if (filter.until !== undefined) at.$lt = new Date(filter.until);
  return {
    ...(filter.statusClass !== undefined && { status: { $gte: filter.statusClass * 100, $lt: filter.statusClass * 100 + 100 } }),
    ...(filter.path !== undefined &&
      (isRoute(filter.path) ? { route: filter.path } : { path: { $regex: `^${escapeRegExp(filter.path)}` } })),
    ...(filter.keyId !== undefined && { key_id: filter.keyId }),
    ...(Object.keys(at).length > 0 && { at }),
    ...(before !== undefined && { _id: { $lt: before } }),
  };
}

/**
 * The environment's request log in its MongoDB database (`request_log`). A TTL index removes a record once it is
 * `retentionMs` old; `prune` removes them at once too (the index's monitor runs once a minute), and a changed
 * retention is set on the index as the store opens.
 */
export class MongoRequestLogStore implements RequestLogStore {
  private constructor(
    private readonly connection: MongoConnection,
    private readonly requests: Collection<RequestDocument>,
  ) {}

  static connect(settings: MongoSettings, database: string, retentionMs: number): Promise<MongoRequestLogStore> {
    return withMongo(settings, async (connection) => {
      const db = connection.db(database);
      const requests = db.collection<RequestDocument>('request_log');
      const expireAfterSeconds = Math.round(retentionMs / 1000);
      try {
        await requests.createIndex({ at: 1 }, { name: 'request_log_ttl', expireAfterSeconds });
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === INDEX_OPTIONS_CONFLICT)) throw error;
        await db.command({ collMod: 'request_log', index: { name: 'request_log_ttl', expireAfterSeconds } });
      }
      await requests.createIndex({ key_id: 1, _id: -1 });
      return new MongoRequestLogStore(connection, requests);
    });
  }

  async append(records: readonly RequestRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.requests.bulkWrite(
      records.map(({ id, at, ...rest }) => ({
        updateOne: { filter: { _id: id }, update: { $setOnInsert: { ...rest, at: new Date(at) } }, upsert: true },
      })),
      { ordered: false },
    );
  }

  async list(filter: RequestFilter, { limit, before }: { limit: number; before?: string }): Promise<RequestPage> {
    const found = await this.requests
      .find(query(filter, before))
      .sort({ _id: -1 })
      .limit(limit + 1)
      .toArray();
    return { data: found.slice(0, limit).map(recordOf), hasMore: found.length > limit };
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const found = await this.requests.findOne({ _id: id });
    return found === null ? undefined : recordOf(found);
  }

  async prune(cutoff: number): Promise<number> {
    return (await this.requests.deleteMany({ at: { $lt: new Date(cutoff) } })).deletedCount;
  }

  close(): Promise<void> {
    return this.connection.release();
  }
}
