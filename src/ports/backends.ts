import type { Logger } from 'pino';
import type { Environment } from '../domain/api-keys.js';
import type { AccountStore } from './account-store.js';
import type { Bus } from './bus.js';
import type { CatalogueStore } from './careers-catalogue.js';
import type { WrappedKeyStore } from './data-keys.js';
import type { EventStore } from './event-store.js';
import type { IdempotencyStore } from './idempotency.js';
import type { KeyStore } from './key-store.js';
import type { ReadModelLayout, ReadModelStore } from './read-models.js';
import type { RequestLogStore } from './request-log.js';

/** A backend server that must answer before a process starts: start-up names it, and its setting, when it does not. */
export interface BackendServer {
  name: string;
  /** The setting that points at it (MONGODB_URL). */
  variable: string;
  url: string;
  /** Resolves once the server answered; bounded by the backend timeout. */
  probe(): Promise<void>;
}

/**
 * Where the read models are kept, and with them every other store a replica shares: idempotency answers,
 * the wrapped data keys, the API keys (both environments'), the leadership lease (in the read-model store).
 */
export interface ReadModelBackend {
  /** Undefined when the stores are files in the data directory. */
  readonly server: BackendServer | undefined;
  /**
   * Upgraded first, by the store's numbered steps (`upgrade`, as a server starts); `as-is` (an operator command
   * beside a running server) changes nothing and throws StoreBehindError when a step is still to run.
   */
  openReadModels(environment: Environment, layout: ReadModelLayout, mode?: 'upgrade' | 'as-is'): Promise<ReadModelStore>;
  openIdempotency(environment: Environment): Promise<IdempotencyStore>;
  /** The environment's request log; `retentionMs`: how long a record is kept, where the store removes them itself (a TTL index). */
  openRequestLog(environment: Environment, retentionMs: number): Promise<RequestLogStore>;
  openWrappedKeys(environment: Environment): Promise<WrappedKeyStore>;
  /** Whether the environment's wrapped keys may hold anything: opening a store that was never made would make it. */
  mayHoldWrappedKeys(environment: Environment): boolean;
  openKeyStore(): Promise<KeyStore>;
  /** The account's users, sessions, application and activity, beside the API keys. */
  openAccountStore(): Promise<AccountStore>;
  /** The careers catalogue, shared by both environments like the API keys (careers.db, or beside the keys on a server). */
  openCatalogueStore(): Promise<CatalogueStore>;
  /** keys.db in the data directory, when the API keys are kept elsewhere: keys minted into it before they moved. */
  readonly keysLeftBehindIn: string | undefined;
}

/** Where the event log is kept, as stored (personal fields sealed). */
export interface EventStoreBackend {
  readonly server: BackendServer | undefined;
  open(environment: Environment): EventStore;
  /** The file that holds the log, undefined on a server: operator commands check it exists rather than make it empty. */
  file(environment: Environment): string | undefined;
}

/** Where the bus between the log and the webhook dispatcher runs. */
export interface BusBackend {
  readonly server: BackendServer | undefined;
  /** `redeliverAfterMs`: how long a message handed to a consumer stays its own before another may have it. */
  open(environment: Environment, options: { redeliverAfterMs: number; logger: Logger }): Promise<Bus>;
}
