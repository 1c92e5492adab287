import { join } from 'node:path';
import type { Logger } from 'pino';
import { indexedFields, projections } from '../projections/index.js';
import { publisherReactor } from '../projections/publisher.js';
import { scoringReactor } from '../projections/scoring.js';
import { EventStoreDbEventStore } from './adapters/eventstoredb/event-store.js';
import { MongoReadModelStore } from './adapters/mongodb/read-model-store.js';
import { NatsBus } from './adapters/nats/bus.js';
import { SqliteBus } from './adapters/sqlite/bus.js';
import { SqliteEventStore } from './adapters/sqlite/event-store.js';
import { SqliteKeyStore } from './adapters/sqlite/key-store.js';
import { SqliteReadModelStore } from './adapters/sqlite/read-model-store.js';
import type { Config } from './config.js';
import { type Environment, environments } from './domain/api-keys.js';
import type { Bus } from './ports/bus.js';
import type { EventStore } from './ports/event-store.js';
import type { KeyStore } from './ports/key-store.js';
import type { ReadModelStore } from './ports/read-models.js';
import { Projector } from './projector.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

/** One environment's stores. Sandbox (test keys) and production (live keys) never share one. */
export interface EnvironmentServices {
  environment: Environment;
  livemode: boolean;
  events: EventStore;
  readModels: ReadModelStore;
  /** Builds the read models; writes wait on it to answer with what they wrote. */
  projector: Projector;
  /**
   * Side effects driven by the log (scoring, publishing to the bus), each on its own subscription, so a
   * bus outage delays webhooks but neither scoring nor the read models.
   */
  reactors: Projector[];
  bus: Bus;
  dispatcher: WebhookDispatcher;
}

export type Environments = Record<Environment, EnvironmentServices>;

/** Each environment's name in file names, EventStoreDB stream prefixes (`sandbox.`) and MongoDB databases (`nature_sandbox`). */
const storeNames: Record<Environment, string> = { test: 'sandbox', live: 'production' };

/** Opens both environments on the configured backends; projectors and dispatchers start with `startEnvironments`. */
export async function openEnvironments(config: Config, logger: Logger, clock: () => Date = () => new Date()): Promise<Environments> {
  // A delivery may take the whole timeout; the bus hands it to another consumer only well after that.
  const redeliverAfterMs = Math.max(30_000, config.webhooks.timeoutMs * 3);
  const open = async (environment: Environment): Promise<EnvironmentServices> => {
    const name = storeNames[environment];
    const base = join(config.dataDir, name);
    const log = logger.child({ environment });
    const events: EventStore =
      config.eventStore.kind === 'eventstoredb'
        ? EventStoreDbEventStore.connect(config.eventStore.url, `${name}.`)
        : new SqliteEventStore(`${base}.events.db`, config.sqliteSynchronous);
    const readModels: ReadModelStore =
      config.readModels.kind === 'mongodb'
        ? await MongoReadModelStore.connect(config.readModels.url, `nature_${name}`, indexedFields)
        : // Read models are rebuilt from the log, so they need not survive power loss: NORMAL is enough.
          new SqliteReadModelStore(`${base}.read.db`, 'NORMAL', indexedFields);
    const bus: Bus =
      config.bus.kind === 'nats'
        ? await NatsBus.connect({ url: config.bus.url, environment, ackWaitMs: redeliverAfterMs })
        : new SqliteBus(`${base}.events.db`, config.sqliteSynchronous, { leaseMs: redeliverAfterMs });
    const projector = new Projector(events, readModels, projections, [], log);
    const reactors = [scoringReactor(events, clock), publisherReactor(events, bus)].map((reactor) => new Projector(events, readModels, [], [reactor], log));
    const livemode = environment === 'live';
    const dispatcher = new WebhookDispatcher({ events, readModels, bus, livemode }, config.webhooks, log, clock);
    return { environment, livemode, events, readModels, projector, reactors, bus, dispatcher };
  };
  return { test: await open('test'), live: await open('live') };
}

export function startEnvironments(envs: Environments): void {
  for (const environment of environments) {
    envs[environment].projector.start();
    for (const reactor of envs[environment].reactors) reactor.start();
    envs[environment].dispatcher.start();
  }
}

export async function closeEnvironments(envs: Environments): Promise<void> {
  for (const environment of environments) {
    const env = envs[environment];
    await env.dispatcher.stop();
    await env.projector.stop();
    for (const reactor of env.reactors) await reactor.stop();
    await env.bus.close();
    await env.events.close();
    await env.readModels.close();
  }
}

/** API keys serve both environments, so they live in one store beside them. */
export function openKeyStore(config: Config): KeyStore {
  return new SqliteKeyStore(join(config.dataDir, 'keys.db'), config.sqliteSynchronous);
}
