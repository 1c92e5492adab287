import { eventStoreDbBackend } from '../adapters/eventstoredb/backend.js';
import { mongoReadModelBackend } from '../adapters/mongodb/backend.js';
import { natsBusBackend } from '../adapters/nats/backend.js';
import { postgresBusBackend, postgresEventStoreBackend, postgresReadModelBackend } from '../adapters/postgres/backend.js';
import {
  keysDbFile,
  type SqliteFiles,
  sqliteBusBackend,
  sqliteEventStoreBackend,
  sqliteReadModelBackend,
} from '../adapters/sqlite/backend.js';
import type { BusBackend, EventStoreBackend, ReadModelBackend } from '../ports/backends.js';
import { projections } from '../projections/index.js';
import type { Config } from '../settings/config.js';

export interface Backends {
  readModels: ReadModelBackend;
  eventStore: EventStoreBackend;
  bus: BusBackend;
}

/** Where the SQLite stores are, whichever backends keep the rest: keys.db is read whatever the configuration. */
export const sqliteFilesOf = (config: Config): SqliteFiles => ({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous });

/** The log's backend NATURE_EVENT_STORE names. */
function eventStoreBackendOf(config: Config, files: SqliteFiles): EventStoreBackend {
  switch (config.eventStore.kind) {
    case 'eventstoredb':
      return eventStoreDbBackend(config.eventStore, config.backendTimeoutMs);
    case 'postgres':
      // Read models beside the log, in the same schemas: each command's read-model changes commit with its events.
      return postgresEventStoreBackend(
        config.eventStore,
        config.backendTimeoutMs,
        config.readModels.kind === 'postgres' && config.readModels.url === config.eventStore.url ? projections : undefined,
      );
    default:
      return sqliteEventStoreBackend(files);
  }
}

/** The read models' backend NATURE_READ_MODELS names, and the stores that follow it. */
function readModelBackendOf(config: Config, files: SqliteFiles): ReadModelBackend {
  const timeoutMs = config.backendTimeoutMs;
  switch (config.readModels.kind) {
    case 'mongodb':
      return mongoReadModelBackend(
        { url: config.readModels.url, timeoutMs, allowWeakWrites: config.mongodbAllowWeakWrites },
        keysDbFile(files),
      );
    case 'postgres':
      return postgresReadModelBackend(config.readModels, timeoutMs, keysDbFile(files));
    default:
      return sqliteReadModelBackend(files);
  }
}

/** The bus NATURE_BUS names; the embedded one beside the log (config.ts chose PostgreSQL for a PostgreSQL log). */
function busBackendOf(config: Config, files: SqliteFiles): BusBackend {
  switch (config.bus.kind) {
    case 'nats':
      return natsBusBackend(config.bus, config.backendTimeoutMs);
    case 'postgres':
      return postgresBusBackend(config.bus, config.backendTimeoutMs);
    default:
      return sqliteBusBackend(files);
  }
}

/** The backends `config` names (NATURE_READ_MODELS, NATURE_EVENT_STORE, NATURE_BUS): the one place each is chosen. */
export function backendsOf(config: Config): Backends {
  const files = sqliteFilesOf(config);
  return {
    readModels: readModelBackendOf(config, files),
    eventStore: eventStoreBackendOf(config, files),
    bus: busBackendOf(config, files),
  };
}
