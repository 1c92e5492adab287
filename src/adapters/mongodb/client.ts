import {
  type ClientSession,
  type Db,
  type DbOptions,
  MongoClient,
  type MongoClientOptions,
  ReadConcern,
  type TransactionOptions,
  WriteConcern,
} from 'mongodb';
import { assessDeployment, type Deployment } from './deployment.js';

/** How the stores reach MongoDB: MONGODB_URL, NATURE_BACKEND_TIMEOUT_MS and NATURE_MONGODB_ALLOW_WEAK_WRITES. */
export interface MongoSettings {
  url: string;
  /** The bound on each wait: server selection, connecting, a pooled connection, a majority's acknowledgement. */
  timeoutMs: number;
  allowWeakWrites: boolean;
}

/**
 * What every read and write of the stores asks for. A write counts once a majority of the replica set has it
 * in its journal, so a failover cannot roll it back (a data key, a key destruction, a lease, a revocation, a
 * checkpoint); `wtimeoutMS` bounds the wait for that majority. Reads see only what a majority has, on the
 * primary, so nothing is decided on a write that may yet be rolled back.
 */
export function concerns(timeoutMs: number): Required<Pick<DbOptions, 'writeConcern' | 'readConcern' | 'readPreference'>> {
  return {
    writeConcern: new WriteConcern('majority', timeoutMs, true),
    readConcern: new ReadConcern('majority'),
    readPreference: 'primary',
  };
}

/**
 * The one client's options: the concerns, and a bound on every wait. The driver's `timeoutMS` (CSOT) has no
 * effect since driver 7.8, so each stage is bounded on its own.
 */
export function mongoClientOptions(timeoutMs: number): MongoClientOptions {
  return {
    ...concerns(timeoutMs),
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    // Above wtimeoutMS, so that a majority that is slow to acknowledge is reported by the server, and a socket
    // silent for longer than that is taken for dead.
    socketTimeoutMS: 3 * timeoutMs,
    // A write or read cut by a failover is tried once more on the new primary (whatever the URL says).
    retryWrites: true,
    retryReads: true,
  };
}

/** A commit's transaction: majority-acknowledged, reading one snapshot, its commit bounded like a write. */
export function transactionOptions(timeoutMs: number): TransactionOptions {
  return {
    writeConcern: new WriteConcern('majority', timeoutMs, true),
    readConcern: { level: 'snapshot' },
    readPreference: 'primary',
    maxCommitTimeMS: timeoutMs,
  };
}

/** A transaction that was still being retried when the backend timeout ran out. */
export class TransactionTimeoutError extends Error {
  override readonly name = 'TransactionTimeoutError';
  constructor(timeoutMs: number) {
    super(`MongoDB did not commit the transaction within ${timeoutMs} ms (NATURE_BACKEND_TIMEOUT_MS)`);
  }
}

/** A store's use of the process's one MongoClient. */
export interface MongoConnection {
  /** What the deployment offers, as found when the client opened. */
  deployment: Deployment;
  /** A database with the concerns set on it: they win over any the URL sets (`w=1`, `readConcernLevel=local`). */
  db(name: string): Db;
  /** Runs `work` in one transaction, run again by the driver after a transient error (a write conflict, a failover). */
  transaction<T>(work: (session: ClientSession) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /** Lets the client go: the last store to let it go closes it. */
  release(): Promise<void>;
}

/**
 * The MongoClient for `settings`, shared by every store of the process (both environments' read models, data
 * keys and idempotency keys, and the API keys): one pool of connections, opened by the first store and closed
 * by the last. Opening checks the deployment (assessDeployment) and refuses one the service cannot rely on.
 */
export async function connectMongo(settings: MongoSettings): Promise<MongoConnection> {
  const { value, release } = await sharedClient(settings);
  const { client, deployment } = value;
  return {
    deployment,
    db: (name) => client.db(name, concerns(settings.timeoutMs)),
    transaction(work) {
      // The driver runs the work again after a transient error (a write conflict, a failover) for up to two
      // minutes: past the backend timeout a commit gives up instead, and its caller tries again later.
      const deadline = performance.now() + settings.timeoutMs;
      return client.withSession((session) =>
        session.withTransaction(async (inSession) => {
          if (performance.now() > deadline) throw new TransactionTimeoutError(settings.timeoutMs);
          return work(inSession);
        }, transactionOptions(settings.timeoutMs)),
      );
    },
    async ping() {
      await client.db('admin').command({ ping: 1 });
    },
    release,
  };
}

/** `make(connection)`, or, if it fails (creating an index, say), the connection let go again. */
export async function withMongo<T>(settings: MongoSettings, make: (connection: MongoConnection) => Promise<T>): Promise<T> {
  const connection = await connectMongo(settings);
  try {
    return await make(connection);
  } catch (error) {
    await connection.release();
    throw error;
  }
}

async function openClient(settings: MongoSettings): Promise<{ client: MongoClient; deployment: Deployment }> {
  const client = new MongoClient(settings.url, mongoClientOptions(settings.timeoutMs));
  try {
    await client.connect();
    const admin = client.db('admin');
    // The version first: a server too old for the service may not know `hello`.
    const buildInfo = await admin.command({ buildInfo: 1 });
    const hello = await admin.command({ hello: 1 });
    return { client, deployment: assessDeployment({ buildInfo, hello }, settings.allowWeakWrites) };
  } catch (error) {
    await client.close();
    throw error;
  }
}

const sharedClient = sharedByKey(
  (settings: MongoSettings) => JSON.stringify([settings.url, settings.timeoutMs, settings.allowWeakWrites]),
  openClient,
  ({ client }) => client.close(),
);

/** One value per key, opened by its first user and closed when its last user releases it. */
export function sharedByKey<S, T>(keyOf: (settings: S) => string, open: (settings: S) => Promise<T>, close: (value: T) => Promise<void>) {
  const entries = new Map<string, { users: number; value: Promise<T> }>();
  return async (settings: S): Promise<{ value: T; release(): Promise<void> }> => {
    const key = keyOf(settings);
    let entry = entries.get(key);
    if (entry === undefined) {
      const opening = { users: 0, value: open(settings) };
      // A failed open is forgotten, so that the next user tries again.
      opening.value.catch(() => {
        if (entries.get(key) === opening) entries.delete(key);
      });
      entries.set(key, opening);
      entry = opening;
    }
    const used = entry;
    used.users += 1;
    let value: T;
    try {
      value = await used.value;
    } catch (error) {
      used.users -= 1;
      throw error;
    }
    let released = false;
    return {
      value,
      async release() {
        if (released) return;
        released = true;
        used.users -= 1;
        if (used.users > 0) return;
        if (entries.get(key) === used) entries.delete(key);
        await close(value);
      },
    };
  };
}
