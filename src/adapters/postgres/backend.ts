import type { BackendServer, EventStoreBackend, ReadModelBackend } from '../../ports/backends.js';
import type { Projection } from '../../ports/projection.js';
import type { PostgresAccess } from '../../settings/config.js';
import { storeNames } from '../store-names.js';
import { PostgresEventStore } from './event-store.js';
import { probePostgres } from './probe.js';
import { PostgresReadModelStore } from './read-model-store.js';

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
      new PostgresEventStore(settings.url, schemaOf(environment), { passwordFile: settings.passwordFile, projections }),
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
 * Both environments' read models on the database, each in its environment's schema beside its log. Only the read
 * models so far: the wiring keeps the stores beside them (idempotency, keys, data keys, accounts) where they were.
 */
export function postgresReadModels(settings: PostgresAccess, timeoutMs: number): Pick<ReadModelBackend, 'server' | 'openReadModels'> {
  return {
    server: postgresServer(settings, timeoutMs),
    openReadModels: (environment, { indexedFields }, mode = 'upgrade') =>
      PostgresReadModelStore.connect(settings.url, schemaOf(environment), indexedFields, {
        asIs: mode === 'as-is',
        passwordFile: settings.passwordFile,
      }),
  };
}
