import type { BackendServer, BusBackend, EventStoreBackend, ReadModelBackend } from '../../ports/backends.js';
import type { Projection } from '../../ports/projection.js';
import type { PostgresAccess } from '../../settings/config.js';
import { storeNames } from '../store-names.js';
import { PostgresAccountStore } from './account-store.js';
import { PostgresBus } from './bus.js';
import { PostgresCatalogueStore } from './catalogue-store.js';
import { PostgresWrappedKeyStore } from './data-key-store.js';
import { PostgresEventStore } from './event-store.js';
import { PostgresIdempotencyStore } from './idempotency-store.js';
import { PostgresKeyStore } from './key-store.js';
import { probePostgres } from './probe.js';
import { PostgresReadModelStore } from './read-model-store.js';
import { PostgresRequestLogStore } from './request-log-store.js';

/** Each environment's schema (`nature_sandbox`, `nature_production`), as MongoDB names its databases. */
export const schemaOf = (environment: keyof typeof storeNames) => `nature_${storeNames[environment]}`;

/**
 * Both environments' logs on one PostgreSQL database, each in its own schema, made by the log's first step. With
 * `projections` (the read models are in the same schemas), each append commits their changes in its own transaction.
 */
export function postgresEventStoreBackend(
  settings: PostgresAccess,
  timeoutMs: number,
  projections?: readonly Projection[],
): EventStoreBackend {
  return {
    server: postgresServer(settings, timeoutMs),
    open: (environment) =>
      new PostgresEventStore(settings.url, schemaOf(environment), {
        passwordFile: settings.passwordFile,
        answerWithinMs: timeoutMs,
        projections,
      }),
    // Only a SQLite log is rewritten in place: the PostgreSQL log refuses every change to an event.
    file: () => undefined,
  };
}

/** The server POSTGRES_URL names, probed at start-up for what both environments' schemas need. */
const postgresServer = (access: PostgresAccess, timeoutMs: number): BackendServer => ({
  name: 'PostgreSQL',
  variable: 'POSTGRES_URL',
  url: access.url,
  probe: () => probePostgres(access, [schemaOf('test'), schemaOf('live')], timeoutMs),
});

/**
 * Every store on the database, so that every replica reads the same: each environment's read models, idempotency
 * keys and wrapped data keys in its schema beside its log, the API keys and the account in `nature_keys`. The
 * stores of a schema share the process's one pool for it (client.ts, poolFor): opened by the first, ended by the
 * last. `keysDbFile`: keys.db in the data directory, which `nature keys import` copies from.
 */
export function postgresReadModelBackend(settings: PostgresAccess, timeoutMs: number, keysDbFile: string): ReadModelBackend {
  const { url, passwordFile } = settings;
  const options = { passwordFile, answerWithinMs: timeoutMs };
  return {
    server: postgresServer(settings, timeoutMs),
    openReadModels: (environment, { indexedFields }, mode = 'upgrade') =>
      PostgresReadModelStore.connect(url, schemaOf(environment), indexedFields, { ...options, asIs: mode === 'as-is' }),
    openIdempotency: (environment) => PostgresIdempotencyStore.connect(url, schemaOf(environment), options),
    openRequestLog: (environment) => PostgresRequestLogStore.connect(url, schemaOf(environment), options),
    openWrappedKeys: (environment) => PostgresWrappedKeyStore.connect(url, schemaOf(environment), options),
    // Opening makes the tables, empty: nothing is lost by asking.
    mayHoldWrappedKeys: () => true,
    openKeyStore: () => PostgresKeyStore.connect(url, undefined, options),
    openAccountStore: () => PostgresAccountStore.connect(url, undefined, options),
    openCatalogueStore: () => PostgresCatalogueStore.connect(url, undefined, options),
    keysLeftBehindIn: keysDbFile,
  };
}

/** The embedded bus beside the log: each environment's messages in its schema, shared by every replica. */
export function postgresBusBackend(settings: PostgresAccess, timeoutMs: number): BusBackend {
  return {
    server: postgresServer(settings, timeoutMs),
    open: (environment, { redeliverAfterMs }) =>
      PostgresBus.connect(settings.url, schemaOf(environment), {
        claimMs: redeliverAfterMs,
        passwordFile: settings.passwordFile,
        answerWithinMs: timeoutMs,
      }),
  };
}
