import type { BackendServer } from '../ports/backends.js';
import type { Config } from '../settings/config.js';
import { within } from '../support/backend-timeout.js';
import { backendProblem, OperatorError } from '../support/operator-errors.js';
import { backendsOf } from './backends.js';

/**
 * The backend servers `config` names that a process uses: the operator command never uses the bus, its key commands
 * no event store. Each once: the log, the read models and the bus on one PostgreSQL are one server to ask.
 */
function serversOf(config: Config, uses: Uses): BackendServer[] {
  const { eventStore, readModels, bus } = backendsOf(config);
  const used = [uses.eventStore ? eventStore.server : undefined, readModels.server, uses.bus ? bus.server : undefined];
  const distinct = new Map(used.filter((server) => server !== undefined).map((server) => [`${server.variable} ${server.url}`, server]));
  return [...distinct.values()];
}

/**
 * Asks every configured backend server for an answer, all at once, each within `config.backendTimeoutMs`;
 * throws an OperatorError whose one line names the first that did not answer (in the order above) and its
 * host, never the URL's credentials. Drivers connect lazily or retry for long: this is where a wrong URL shows.
 */
type Uses = { bus: boolean; eventStore: boolean };

export async function checkBackends(config: Config, uses: Uses = { bus: true, eventStore: true }): Promise<void> {
  const servers = serversOf(config, uses);
  const outcomes = await Promise.allSettled(servers.map((server) => within(config.backendTimeoutMs, server.probe())));
  const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
  if (failed === -1) return;
  throw new OperatorError(backendProblem(servers[failed]!, (outcomes[failed] as PromiseRejectedResult).reason, config.backendTimeoutMs));
}
