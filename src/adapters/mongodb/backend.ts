import type { Environment } from '../../domain/api-keys.js';
import type { ReadModelBackend } from '../../ports/backends.js';
import { storeNames } from '../store-names.js';
import { MongoAccountStore } from './account-store.js';
import { MongoCatalogueStore } from './catalogue-store.js';
import type { MongoSettings } from './client.js';
import { MongoWrappedKeyStore } from './data-key-store.js';
import { MongoIdempotencyStore } from './idempotency-store.js';
import { MongoKeyStore } from './key-store.js';
import { probeMongoDb } from './probe.js';
import { MongoReadModelStore } from './read-model-store.js';
import { MongoRequestLogStore } from './request-log-store.js';

/** The environment's database: `nature_sandbox`. */
const databaseOf = (environment: Environment) => `nature_${storeNames[environment]}`;

/**
 * Every store in MongoDB, each environment's in its own database and the API keys in `nature_keys`, so that
 * every replica reads the same. Every store shares the process's one MongoClient (client.ts): opened by the
 * first, closed when the last one closes.
 */
export function mongoReadModelBackend(settings: MongoSettings, keysDbFile: string): ReadModelBackend {
  return {
    server: { name: 'MongoDB', variable: 'MONGODB_URL', url: settings.url, probe: () => probeMongoDb(settings) },
    openReadModels: (environment, layout, mode = 'upgrade') =>
      MongoReadModelStore.connect(settings, databaseOf(environment), layout, mode === 'as-is'),
    openIdempotency: (environment) => MongoIdempotencyStore.connect(settings, databaseOf(environment)),
    openRequestLog: (environment, retentionMs) => MongoRequestLogStore.connect(settings, databaseOf(environment), retentionMs),
    openWrappedKeys: (environment) => MongoWrappedKeyStore.connect(settings, databaseOf(environment)),
    // A database that was never made answers empty, and is not made by asking.
    mayHoldWrappedKeys: () => true,
    openKeyStore: () => MongoKeyStore.connect(settings),
    openAccountStore: () => MongoAccountStore.connect(settings),
    openCatalogueStore: () => MongoCatalogueStore.connect(settings),
    keysLeftBehindIn: keysDbFile,
  };
}
