import type { BackendServer, EventStoreBackend, ReadModelBackend } from '../../ports/backends.js';
import { storeNames } from '../store-names.js';
import { PostgresAccountStore } from './account-store.js';
import { PostgresWrappedKeyStore } from './data-key-store.js';
import { PostgresEventStore } from './event-store.js';
import { PostgresIdempotencyStore } from './idempotency-store.js';
import { PostgresKeyStore } from './key-store.js';
import { probePostgres } from './probe.js';
import { PostgresReadModelStore } from './read-model-store.js';

/** Each environment's schema (`nature_sandbox`, `nature_production`), as MongoDB names its databases. */
export const schemaOf = (environment: keyof typeof storeNames) => `nature_${storeNames[environment]}`;

/** Both environments' logs on one PostgreSQL database, each in its own schema, made by the log's first step. */
export function postgresEventStoreBackend(settings: { url: string }, timeoutMs: number): EventStoreBackend {
  return {
    server: postgresServer(settings.url, timeoutMs),
    open: (environment) => new PostgresEventStore(settings.url, schemaOf(environment)),
    // Only a SQLite log is rewritten in place: the PostgreSQL log refuses every change to an event.
    file: () => undefined,
  };
}

/** The server POSTGRES_URL names, probed at start-up. */
const postgresServer = (url: string, timeoutMs: number): BackendServer => ({
  name: 'PostgreSQL',
  variable: 'POSTGRES_URL',
  url,
  probe: () => probePostgres(url, timeoutMs),
});

/**
 * Every store on the database, so that every replica reads the same: each environment's read models, idempotency
 * keys and wrapped data keys in its schema beside its log, the API keys and the account in `nature_keys`. The
 * stores of a schema share the process's one pool for it (client.ts, poolFor): opened by the first, ended by the
 * last. `keysDbFile`: keys.db in the data directory, which `nature keys import` copies from.
 */
export function postgresReadModelBackend(settings: { url: string }, timeoutMs: number, keysDbFile: string): ReadModelBackend {
  const { url } = settings;
  return {
    server: postgresServer(url, timeoutMs),
    openReadModels: (environment, { indexedFields }, mode = 'upgrade') =>
      PostgresReadModelStore.connect(url, schemaOf(environment), indexedFields, { asIs: mode === 'as-is' }),
    openIdempotency: (environment) => PostgresIdempotencyStore.connect(url, schemaOf(environment)),
    openWrappedKeys: (environment) => PostgresWrappedKeyStore.connect(url, schemaOf(environment)),
    // Opening makes the tables, empty: nothing is lost by asking.
    mayHoldWrappedKeys: () => true,
    openKeyStore: () => PostgresKeyStore.connect(url),
    openAccountStore: () => PostgresAccountStore.connect(url),
    keysLeftBehindIn: keysDbFile,
  };
}
