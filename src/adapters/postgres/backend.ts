import type { BackendServer, BusBackend, EventStoreBackend, ReadModelBackend } from '../../ports/backends.js';
import { storeNames } from '../store-names.js';
import { PostgresBus } from './bus.js';
import { PostgresEventStore } from './event-store.js';
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
 * Both environments' read models on the database, each in its environment's schema beside its log. Only the read
 * models so far: the wiring keeps the stores beside them (idempotency, keys, data keys, accounts) where they were.
 */
export function postgresReadModels(settings: { url: string }, timeoutMs: number): Pick<ReadModelBackend, 'server' | 'openReadModels'> {
  return {
    server: postgresServer(settings.url, timeoutMs),
    openReadModels: (environment, { indexedFields }, mode = 'upgrade') =>
      PostgresReadModelStore.connect(settings.url, schemaOf(environment), indexedFields, { asIs: mode === 'as-is' }),
  };
}

/** The embedded bus beside the log: each environment's messages in its schema, shared by every replica. */
export function postgresBusBackend(settings: { url: string }, timeoutMs: number): BusBackend {
  return {
    server: postgresServer(settings.url, timeoutMs),
    open: (environment, { redeliverAfterMs }) => PostgresBus.connect(settings.url, schemaOf(environment), { claimMs: redeliverAfterMs }),
  };
}
