import { probeEventStoreDb } from './adapters/eventstoredb/probe.js';
import { probeMongoDb } from './adapters/mongodb/probe.js';
import { probeNats } from './adapters/nats/probe.js';
import { within } from './backend-timeout.js';
import type { Config } from './config.js';
import { backendProblem, OperatorError } from './operator-errors.js';

interface Backend {
  name: string;
  variable: string;
  url: string;
  probe: (url: string, timeoutMs: number) => Promise<void>;
}

/** The backend servers `config` names that a process uses: the operator command never uses the bus, its key commands no event store. */
function backendsOf(config: Config, uses: Uses): Backend[] {
  const backends: Backend[] = [];
  if (uses.eventStore && config.eventStore.kind === 'eventstoredb')
    backends.push({ name: 'EventStoreDB', variable: 'EVENTSTORE_URL', url: config.eventStore.url, probe: probeEventStoreDb });
  if (config.readModels.kind === 'mongodb') {
    const allowWeakWrites = config.mongodbAllowWeakWrites;
    backends.push({
      name: 'MongoDB',
      variable: 'MONGODB_URL',
      url: config.readModels.url,
      probe: (url, timeoutMs) => probeMongoDb({ url, timeoutMs, allowWeakWrites }),
    });
  }
  if (uses.bus && config.bus.kind === 'nats') {
    const access = config.bus;
    backends.push({ name: 'NATS', variable: 'NATS_URL', url: access.url, probe: (_, timeoutMs) => probeNats(access, timeoutMs) });
  }
  return backends;
}

/**
 * Asks every configured backend server for an answer, all at once, each within `config.backendTimeoutMs`;
 * throws an OperatorError whose one line names the first that did not answer (in the order above) and its
 * host, never the URL's credentials. Drivers connect lazily or retry for long: this is where a wrong URL shows.
 */
type Uses = { bus: boolean; eventStore: boolean };

export async function checkBackends(config: Config, uses: Uses = { bus: true, eventStore: true }): Promise<void> {
  const backends = backendsOf(config, uses);
  const outcomes = await Promise.allSettled(
    backends.map((backend) => within(config.backendTimeoutMs, backend.probe(backend.url, config.backendTimeoutMs))),
  );
  const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
  if (failed === -1) return;
  throw new OperatorError(backendProblem(backends[failed]!, (outcomes[failed] as PromiseRejectedResult).reason, config.backendTimeoutMs));
}
