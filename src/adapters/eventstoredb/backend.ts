import type { EventStoreBackend } from '../../ports/backends.js';
import { storeNames } from '../store-names.js';
import { EventStoreDbEventStore, type EventStoreDbSettings } from './event-store.js';
import { probeEventStoreDb } from './probe.js';

/** Both environments' logs on one EventStoreDB server, each environment's streams under its prefix (`sandbox.`). */
export function eventStoreDbBackend(settings: EventStoreDbSettings, timeoutMs: number): EventStoreBackend {
  return {
    server: {
      name: 'EventStoreDB',
      variable: 'EVENTSTORE_URL',
      url: settings.url,
      probe: () => probeEventStoreDb(settings.url, timeoutMs),
    },
    open: (environment) => EventStoreDbEventStore.connect(settings, `${storeNames[environment]}.`),
    // Only a SQLite log is rewritten in place: EventStoreDB never changes an event once written.
    file: () => undefined,
  };
}
