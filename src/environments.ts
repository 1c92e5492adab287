import { join } from 'node:path';
import type { Logger } from 'pino';
import { indexedFields, projections } from '../projections/index.js';
import { scoringReactor } from '../projections/scoring.js';
import { SqliteEventStore } from './adapters/sqlite/event-store.js';
import { SqliteKeyStore } from './adapters/sqlite/key-store.js';
import { SqliteReadModelStore } from './adapters/sqlite/read-model-store.js';
import type { Config } from './config.js';
import { type Environment, environments } from './domain/api-keys.js';
import type { EventStore } from './ports/event-store.js';
import type { KeyStore } from './ports/key-store.js';
import type { ReadModelStore } from './ports/read-models.js';
import { Projector } from './projector.js';

/** One environment's stores. Sandbox (test keys) and production (live keys) never share one. */
export interface EnvironmentServices {
  environment: Environment;
  livemode: boolean;
  events: EventStore;
  readModels: ReadModelStore;
  projector: Projector;
}

export type Environments = Record<Environment, EnvironmentServices>;

const fileNames: Record<Environment, string> = { test: 'sandbox', live: 'production' };

/** Opens both environments on the configured backends; projectors start with `startEnvironments`. */
export function openEnvironments(config: Config, logger: Logger, clock: () => Date = () => new Date()): Environments {
  const open = (environment: Environment): EnvironmentServices => {
    const base = join(config.dataDir, fileNames[environment]);
    const events = new SqliteEventStore(`${base}.events.db`, config.sqliteSynchronous);
    // Read models are rebuilt from the log, so they need not survive power loss: NORMAL is enough.
    const readModels = new SqliteReadModelStore(`${base}.read.db`, 'NORMAL', indexedFields);
    const projector = new Projector(events, readModels, projections, [scoringReactor(events, clock)], logger.child({ environment }));
    return { environment, livemode: environment === 'live', events, readModels, projector };
  };
  return { test: open('test'), live: open('live') };
}

export function startEnvironments(envs: Environments): void {
  for (const environment of environments) envs[environment].projector.start();
}

export async function closeEnvironments(envs: Environments): Promise<void> {
  for (const environment of environments) {
    const env = envs[environment];
    await env.projector.stop();
    await env.events.close();
    await env.readModels.close();
  }
}

/** API keys serve both environments, so they live in one store beside them. */
export function openKeyStore(config: Config): KeyStore {
  return new SqliteKeyStore(join(config.dataDir, 'keys.db'), config.sqliteSynchronous);
}
