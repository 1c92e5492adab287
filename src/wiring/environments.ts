import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { StoreBehindError } from '../adapters/data-versions.js';
import { isTransient as isEventStoreUnavailable } from '../adapters/eventstoredb/append-retry.js';
import { isMongoUnavailable } from '../adapters/mongodb/unavailable.js';
import { isPostgresUnavailable } from '../adapters/postgres/unavailable.js';
import { careersDbFile, keysDbFile, openKeysDb } from '../adapters/sqlite/backend.js';
import { READ_YOUR_WRITES_TIMEOUT_MS } from '../commands/context.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { type EventType, eventTypes, subscribes } from '../domain/webhook-endpoint.js';
import type { AccountStore } from '../ports/account-store.js';
import type { ReadModelBackend } from '../ports/backends.js';
import type { Bus } from '../ports/bus.js';
import type { CatalogueStore } from '../ports/careers-catalogue.js';
import type { DataKeyStore, WrappedKeyStore } from '../ports/data-keys.js';
import type { EventStore } from '../ports/event-store.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { KeyStore } from '../ports/key-store.js';
import type { Reactor } from '../ports/projection.js';
import type { ReadModelLayout, ReadModelStore } from '../ports/read-models.js';
import type { RequestLogStore } from '../ports/request-log.js';
import { CachedDataKeys } from '../privacy/cached-data-keys.js';
import { EncryptingEventStore } from '../privacy/encrypting-event-store.js';
import { MasterKeyFile, type WrappedKeyHeld } from '../privacy/master-key-file.js';
import { OpenedStreamCache } from '../privacy/opened-streams.js';
import { firstWrapped, WrappedDataKeys } from '../privacy/wrapped-data-keys.js';
import { erasureReactor } from '../projections/erasure.js';
import { ExpiryWatch } from '../projections/expiry-watch.js';
import { indexedFields, projections } from '../projections/index.js';
import { publisherReactor } from '../projections/publisher.js';
import { rescoringReactor } from '../projections/rescoring.js';
import { scoringReactor } from '../projections/scoring.js';
import { situationalReactor } from '../projections/situational.js';
import { usageProjection } from '../projections/usage.js';
import { Leadership } from '../projector/leadership.js';
import { PROJECTED } from '../projector/progress.js';
import { Projector } from '../projector/projector.js';
import type { Config } from '../settings/config.js';
import { OperatorError } from '../support/operator-errors.js';
import type { EndpointRules } from '../webhooks/address-guard.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { enabledEndpoints } from '../webhooks/enabled-endpoints.js';
import { type Backends, backendsOf, sqliteFilesOf } from './backends.js';
import { requestLogPruning } from './request-log-pruning.js';

/** One environment's stores. Sandbox (test keys) and production (live keys) never share one. */
export interface EnvironmentServices {
  environment: Environment;
  livemode: boolean;
  /** Where this environment's webhook endpoints may be (NATURE_WEBHOOK_ALLOW_PRIVATE for the sandbox's loopback). */
  endpointRules: EndpointRules;
  /** The log with personal fields sealed on the way in and opened on the way out: what commands read and write. */
  events: EventStore;
  /** The same log with data keys never cached: what an audit shows, so an erasure by another replica shows at once. */
  auditLog: EventStore;
  /** The same log as stored, personal fields sealed: for reads that never need them (a profile rebuild's scan), without decrypting. */
  sealedLog: EventStore;
  /** Per-subject data keys, beside the log. */
  dataKeys: DataKeyStore;
  readModels: ReadModelStore;
  /** Answers kept for Idempotency-Key retries, beside the read models. */
  idempotency: IdempotencyStore;
  /** Every API request the environment answered, for its developers (the dashboard, `nature logs tail`); pruned by the leader. */
  requests: RequestLogStore;
  /**
   * Builds the read models and runs the side effects driven by the log (scoring left waiting, rescoring,
   * publishing to the bus, erasure), from one reader of the log, each handler in its own lane: a bus outage
   * delays webhooks but neither the read models nor the other reactors. Writes wait on it to answer with
   * what they wrote.
   */
  projector: Projector;
  /** The version that scores completions (NATURE_SCORING_VERSION). */
  scoringVersion: string;
  bus: Bus;
  /** Delivers the webhooks while this replica leads (each start, with the term's guard, runs a fresh WebhookDispatcher). */
  dispatcher: Service<LeaderGuard>;
  /**
   * Whether this replica runs the projector's handlers and the dispatcher: the one that holds the
   * environment's lease in its read-model store does; every replica serves HTTP.
   */
  leadership: Leadership;
}

/** Throws FencedOffError once this replica no longer leads; see Lead.guard. */
export type LeaderGuard = () => Promise<void>;

/** Something a replica runs while it leads. */
export interface Service<Term = void> {
  start(term: Term): void;
  stop(): Promise<void>;
}

export type Environments = Record<Environment, EnvironmentServices>;

/** The environment's wrapped data keys as stored, beside the read models. */
export function openWrappedKeys(config: Config, environment: Environment): Promise<WrappedKeyStore> {
  return backendsOf(config).readModels.openWrappedKeys(environment);
}

/**
 * The environment's data keys, opened with the master key (NATURE_MASTER_KEY_FILE). The key file is made on
 * the first start, only while no environment's store holds a key wrapped by another: else the start stops.
 */
export async function openDataKeys(config: Config, environment: Environment): Promise<CachedDataKeys> {
  const backend = backendsOf(config).readModels;
  const store = await backend.openWrappedKeys(environment);
  /** A key wrapped by a master key in any environment's store (one master key serves both). */
  const held = async (): Promise<WrappedKeyHeld | undefined> => {
    const found = await firstWrapped(store);
    if (found !== undefined) return found;
    for (const other of environments.filter((each) => each !== environment)) {
      // A store that was never made holds nothing, and is not made here.
      if (!backend.mayHoldWrappedKeys(other)) continue;
      const otherStore = await backend.openWrappedKeys(other);
      try {
        const inOther = await firstWrapped(otherStore);
        if (inOther !== undefined) return inOther;
      } finally {
        await otherStore.close();
      }
    }
    return undefined;
  };
  try {
    return new CachedDataKeys(await WrappedDataKeys.open(store, await MasterKeyFile.open(config.masterKeyFile, held)));
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Three views of one environment's log, and the data keys that seal it. */
export interface Log {
  /**
   * Sealed and opened with data keys cached briefly, streams kept opened between reads (OpenedStreamCache):
   * what commands and operator commands read and write.
   */
  events: EventStore;
  /**
   * Opened with keys read afresh each time, for what is shown to a caller (an audit): a key another replica
   * destroyed is gone here at once rather than after the cache's lifetime.
   */
  auditLog: EventStore;
  /** As stored, personal fields sealed. */
  sealedLog: EventStore;
  dataKeys: DataKeyStore;
}

export async function openLog(config: Config, environment: Environment, backends: Backends = backendsOf(config)): Promise<Log> {
  const dataKeys = await openDataKeys(config, environment);
  const sealedLog = backends.eventStore.open(environment);
  const opened = new OpenedStreamCache();
  dataKeys.onDestroy((subjectId) => opened.forgetSubject(subjectId));
  return {
    events: new EncryptingEventStore(sealedLog, dataKeys, opened),
    auditLog: new EncryptingEventStore(sealedLog, dataKeys.uncached),
    sealedLog,
    dataKeys,
  };
}

/**
 * The read models' layout: their list indexes, and what the store's numbered data steps rebuild from the log
 * (read models from before their personal fields were sealed: every projection's, the reactors' checkpoints kept,
 * so nothing is scored or published again; usage from before counters).
 */
export const readModelLayout: ReadModelLayout = {
  indexedFields,
  rebuilds: {
    all: {
      collections: projections.map((projection) => projection.collection),
      checkpoints: [...projections.map((projection) => projection.name), PROJECTED],
    },
    usage: { collections: [usageProjection.collection], checkpoints: [usageProjection.name, PROJECTED] },
  },
};

/** The environment's read models on the configured backend, upgraded by the store's steps to what this version reads. */
const openReadModels = (backend: ReadModelBackend, environment: Environment) => backend.openReadModels(environment, readModelLayout);

/**
 * One environment's read models as a read-only operator command reads them (`nature usage`), beside a running
 * server: opened as they are, never upgraded. Read models no server of this version has opened yet (in an older
 * format, or a store that holds nothing) are refused rather than reported as empty or miscounted.
 */
export async function openOperatorReadModels(config: Config, environment: Environment): Promise<ReadModelStore> {
  try {
    return await backendsOf(config).readModels.openReadModels(environment, readModelLayout, 'as-is');
  } catch (error) {
    if (!(error instanceof StoreBehindError)) throw error;
    throw new OperatorError(
      `the ${environment} environment's read models were never opened by a server of this version: start the server on them once, then ask again`,
    );
  }
}

/** One environment's stores as an operator command uses them, beside a running server; `close` closes them all. */
export async function openOperatorStores(config: Config, environment: Environment) {
  const backends = backendsOf(config);
  const { events, sealedLog, dataKeys } = await openLog(config, environment, backends);
  const readModels = await openReadModels(backends.readModels, environment);
  return {
    events,
    sealedLog,
    dataKeys,
    readModels,
    async close(): Promise<void> {
      await sealedLog.close();
      await dataKeys.close();
      await readModels.close();
    },
  };
}

/** Opens both environments on the configured backends; projectors and dispatchers start with `startEnvironments`. */
export async function openEnvironments(config: Config, logger: Logger, clock: () => Date = () => new Date()): Promise<Environments> {
  const backends = backendsOf(config);
  const open = (environment: Environment) => openEnvironment(config, backends, environment, logger.child({ environment }), clock);
  return { test: await open('test'), live: await open('live') };
}

async function openEnvironment(
  config: Config,
  backends: Backends,
  environment: Environment,
  logger: Logger,
  clock: () => Date,
): Promise<EnvironmentServices> {
  const { events, auditLog, sealedLog, dataKeys } = await openLog(config, environment, backends);
  const readModels = await openReadModels(backends.readModels, environment);
  const idempotency = await backends.readModels.openIdempotency(environment);
  const requests = await backends.readModels.openRequestLog(environment, config.requestLogRetentionMs);
  const pruning = requestLogPruning(requests, config.requestLogRetentionMs, clock, logger);
  // A delivery may take the whole timeout; the bus hands it to another consumer only well after that.
  const bus = await backends.bus.open(environment, { redeliverAfterMs: Math.max(30_000, config.webhooks.timeoutMs * 3), logger });
  const reactors: Reactor[] = [
    scoringReactor(events, config.scoringVersion, clock),
    rescoringReactor(events, clock),
    situationalReactor({ events, dataKeys }, clock),
    // The projector is made below, with these reactors; the publisher asks it only once it runs.
    publisherReactor(events, bus, (position) => listening(readModels, projector, position)),
    erasureReactor({ events, dataKeys }),
  ];
  // The projections copy sealed personal fields as the log holds them, so they read it unopened.
  const projector = new Projector(sealedLog, readModels, projections, reactors, logger);
  const livemode = environment === 'live';
  const endpointRules = { livemode, loopback: !livemode && config.webhooks.allowPrivate === 'sandbox' };
  // Fan-out lists the endpoints once the read models hold everything up to the event: none registered before it is missed.
  const readModelsAt = (position: bigint) => projector.waitFor(position, READ_YOUR_WRITES_TIMEOUT_MS);
  const dispatcher = restartable(
    (guard: LeaderGuard) =>
      new WebhookDispatcher({ events, readModels, bus, endpointRules, readModelsAt, guard }, config.webhooks, logger, clock),
  );
  const expiryWatch = restartable(() => new ExpiryWatch({ events, readModels }, config.expiryCheckMs, logger, clock));
  const leadership = new Leadership(
    readModels,
    { name: LEADER_LEASE, holder: `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`, ttlMs: config.leaderLeaseMs },
    {
      lead({ fence, guard }) {
        projector.start(fence, guard);
        dispatcher.start(guard);
        expiryWatch.start(undefined);
        pruning.start();
      },
      async follow() {
        await Promise.all([dispatcher.stop(), expiryWatch.stop(), projector.follow(), pruning.stop()]);
      },
    },
    logger,
  );
  return {
    environment,
    livemode,
    endpointRules,
    events,
    auditLog,
    sealedLog,
    dataKeys,
    readModels,
    idempotency,
    requests,
    projector,
    scoringVersion: config.scoringVersion,
    bus,
    dispatcher,
    leadership,
  };
}

/**
 * Whether an error means a backend server does not answer now (MongoDB without a primary, EventStoreDB or
 * PostgreSQL unreachable): the request that met it is worth retrying, and is answered 503, not 500.
 */
export function backendUnavailable(error: unknown): boolean {
  return isMongoUnavailable(error) || isEventStoreUnavailable(error) || isPostgresUnavailable(error);
}

/** The lease, one per environment's read-model store, for the projector's handlers and the dispatcher. */
const LEADER_LEASE = 'leader';

/** Starts each environment's leadership: the projector and dispatcher run on the replica that takes the lease. */
export function startEnvironments(envs: Environments): void {
  for (const environment of environments) envs[environment].leadership.start();
}

/** Each start makes a new service (a stopped WebhookDispatcher does not start again); stop stops the current one. */
function restartable<Term>(make: (term: Term) => Service): Service<Term> {
  let current: Service | undefined;
  return {
    start(term) {
      current ??= make(term);
      current.start();
    },
    async stop() {
      const stopping = current;
      current = undefined;
      await stopping?.stop();
    },
  };
}

export async function closeEnvironments(envs: Environments): Promise<void> {
  for (const environment of environments) {
    const env = envs[environment];
    await env.leadership.stop();
    await env.projector.stop();
    await env.bus.close();
    await env.events.close();
    await env.dataKeys.close();
    await env.readModels.close();
    await env.idempotency.close();
    await env.requests.close();
  }
}

/**
 * API keys serve both environments, so they live in one store beside them: in MongoDB or PostgreSQL
 * (`nature_keys`) whenever the read models are there, so every replica reads the same keys; else in keys.db in
 * the data directory. `keys.db` opens that file whatever the configuration (what `nature keys import` copies from).
 */
export async function openKeyStore(config: Config, store: 'configured' | 'keys.db' = 'configured'): Promise<KeyStore> {
  return store === 'keys.db' ? openKeysDb(sqliteFilesOf(config)) : await backendsOf(config).readModels.openKeyStore();
}

/** The account's users, sessions, application and activity: beside the API keys. */
export function openAccountStore(config: Config): Promise<AccountStore> {
  return backendsOf(config).readModels.openAccountStore();
}

/** An environment's request log as `nature logs tail` reads it, beside a running server. */
export function openRequestLog(config: Config, environment: Environment): Promise<RequestLogStore> {
  return backendsOf(config).readModels.openRequestLog(environment, config.requestLogRetentionMs);
}

/** The careers catalogue, shared by both environments: careers.db, or beside the API keys on a server. */
export function openCatalogueStore(config: Config): Promise<CatalogueStore> {
  return backendsOf(config).readModels.openCatalogueStore();
}

/**
 * The file that holds the key store, the careers catalogue, or an environment's log on the SQLite default (undefined
 * on EventStoreDB): operator commands that read a store check that it exists rather than create it empty.
 */
export function sqliteStoreFile(config: Config, store: 'keys' | 'careers'): string;
export function sqliteStoreFile(config: Config, store: 'keys' | 'careers' | Environment): string | undefined;
export function sqliteStoreFile(config: Config, store: 'keys' | 'careers' | Environment): string | undefined {
  if (store === 'keys') return keysDbFile(sqliteFilesOf(config));
  if (store === 'careers') return careersDbFile(sqliteFilesOf(config));
  return backendsOf(config).eventStore.file(store);
}

/**
 * The types the environment's enabled endpoints listen to, once the read models hold every endpoint registered up
 * to `position`; undefined when they do not in good time.
 */
async function listening(readModels: ReadModelStore, projector: Projector, position: bigint): Promise<Set<EventType> | undefined> {
  if (!(await projector.waitFor(position, READ_YOUR_WRITES_TIMEOUT_MS))) return undefined;
  const endpoints = await enabledEndpoints(readModels);
  return new Set(eventTypes.filter((type) => endpoints.some((endpoint) => subscribes(endpoint, type))));
}
