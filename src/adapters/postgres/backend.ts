import type { EventStoreBackend } from '../../ports/backends.js';
import { storeNames } from '../store-names.js';
import { PostgresEventStore } from './event-store.js';
import { probePostgres } from './probe.js';

/** Each environment's schema (`nature_sandbox`, `nature_production`), as MongoDB names its databases. */
export const schemaOf = (environment: keyof typeof storeNames) => `nature_${storeNames[environment]}`;

/** Both environments' logs on one PostgreSQL database, each in its own schema, made by the log's first step. */
export function postgresEventStoreBackend(settings: { url: string }, timeoutMs: number): EventStoreBackend {
  return {
    server: {
      name: 'PostgreSQL',
      variable: 'POSTGRES_URL',
      url: settings.url,
      probe: () => probePostgres(settings.url, timeoutMs),
    },
    open: (environment) => new PostgresEventStore(settings.url, schemaOf(environment)),
    // Only a SQLite log is rewritten in place: the PostgreSQL log refuses every change to an event.
    file: () => undefined,
  };
}
