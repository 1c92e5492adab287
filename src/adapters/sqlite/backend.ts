import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from '../../domain/api-keys.js';
import type { BusBackend, EventStoreBackend, ReadModelBackend } from '../../ports/backends.js';
import type { KeyStore } from '../../ports/key-store.js';
import { storeNames } from '../store-names.js';
import { SqliteAccountStore } from './account-store.js';
import { SqliteBus } from './bus.js';
import { SqliteCatalogueStore } from './catalogue-store.js';
import { SqliteWrappedKeyStore } from './data-key-store.js';
import type { Synchronous } from './database.js';
import { SqliteEventStore } from './event-store.js';
import { SqliteIdempotencyStore } from './idempotency-store.js';
import { SqliteKeyStore } from './key-store.js';
import { SqliteReadModelStore } from './read-model-store.js';
import { SqliteRequestLogStore } from './request-log-store.js';

/** Where the stores' files are, and how hard each commit waits for the disk (NATURE_SQLITE_SYNCHRONOUS). */
export interface SqliteFiles {
  dataDir: string;
  synchronous: Synchronous;
}

/** A file of the environment's in the data directory: `sandbox.read.db`. */
const fileOf = ({ dataDir }: SqliteFiles, environment: Environment, suffix: string) =>
  join(dataDir, `${storeNames[environment]}.${suffix}`);

/** The file of the API keys, shared by both environments. */
export const keysDbFile = ({ dataDir }: SqliteFiles) => join(dataDir, 'keys.db');

/** The file of the careers catalogue, shared by both environments. */
export const careersDbFile = ({ dataDir }: SqliteFiles) => join(dataDir, 'careers.db');

/** The API keys in keys.db, whatever the configuration: what `nature keys import` copies from. */
export function openKeysDb(files: SqliteFiles): KeyStore {
  return new SqliteKeyStore(keysDbFile(files), files.synchronous);
}

/** Each store in its own file in the data directory. */
export function sqliteReadModelBackend(files: SqliteFiles): ReadModelBackend {
  return {
    server: undefined,
    // Read models are rebuilt from the log, so they need not survive power loss: NORMAL is enough.
    openReadModels: async (environment, { indexedFields, rebuilds }, mode = 'upgrade') =>
      new SqliteReadModelStore(fileOf(files, environment, 'read.db'), 'NORMAL', indexedFields, { rebuilds, asIs: mode === 'as-is' }),
    // NORMAL, like the read models: a commit survives the process (SIGKILL) without an fsync of its own. Power loss can
    // undo the last answers stored, whose retries then run again, as after losing the file: a write whose events are
    // in the log (at FULL) still answers as first decided. The two fsyncs it saves blocked the event loop ~2.4 ms
    // per keyed request (claim, then the answer), more than the rest of a PATCH costs.
    openIdempotency: async (environment) => new SqliteIdempotencyStore(fileOf(files, environment, 'idempotency.db'), 'NORMAL'),
    // A file of its own, so that its batches never wait on the log's commits; NORMAL, since a record lost to a power cut costs nothing.
    openRequestLog: async (environment) => new SqliteRequestLogStore(fileOf(files, environment, 'requests.db'), 'NORMAL'),
    openWrappedKeys: async (environment) => new SqliteWrappedKeyStore(fileOf(files, environment, 'data-keys.db'), files.synchronous),
    mayHoldWrappedKeys: (environment) => existsSync(fileOf(files, environment, 'data-keys.db')),
    openKeyStore: async () => openKeysDb(files),
    openAccountStore: async () => new SqliteAccountStore(keysDbFile(files), files.synchronous),
    openCatalogueStore: async () => new SqliteCatalogueStore(careersDbFile(files), files.synchronous),
    keysLeftBehindIn: undefined,
  };
}

/** The log in `sandbox.events.db`. */
export function sqliteEventStoreBackend(files: SqliteFiles): EventStoreBackend {
  const file = (environment: Environment) => fileOf(files, environment, 'events.db');
  return {
    server: undefined,
    open: (environment) => new SqliteEventStore(file(environment), files.synchronous),
    file,
  };
}

/**
 * The bus as a queue in the environment's log file. Its commits need no fsync of their own (NORMAL): they go
 * into the same WAL as the log's, and what makes a message matter is followed by a log append at FULL, which
 * syncs the WAL up to it (a publication is recorded as NotificationPublished after its publish). Power loss
 * can then only undo a lease, an ack or a retry's schedule, and the message is delivered again: at least once,
 * as always. This takes three to six fsyncs per completion off the event loop.
 */
export function sqliteBusBackend(files: SqliteFiles): BusBackend {
  return {
    server: undefined,
    open: async (environment, { redeliverAfterMs }) =>
      new SqliteBus(fileOf(files, environment, 'events.db'), 'NORMAL', { leaseMs: redeliverAfterMs }),
  };
}
