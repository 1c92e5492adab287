import type { Logger } from 'pino';
import type { Environment } from '../domain/api-keys.js';
import type { AccountStore } from './account-store.js';
import type { Bus } from './bus.js';
import type { DataKeyStore, WrappedKeyStore } from './data-keys.js';
import type { EventStore } from './event-store.js';
import type { IdempotencyStore } from './idempotency.js';
import type { KeyStore } from './key-store.js';
import type { IndexedField, ReadModelStore } from './read-models.js';

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
  openReadModels(environment: Environment, indexedFields: IndexedField[]): Promise<ReadModelStore>;
  /**
   * Removes the environment's read models whole, so that no plaintext they held is left behind, when the
   * log they were built from was sealed in place (they are rebuilt from it).
   */
  discardReadModels(environment: Environment): void;
  openIdempotency(environment: Environment): Promise<IdempotencyStore>;
  openWrappedKeys(environment: Environment): Promise<WrappedKeyStore>;
  /** Whether the environment's wrapped keys may hold anything: opening a store that was never made would make it. */
  mayHoldWrappedKeys(environment: Environment): boolean;
  openKeyStore(): Promise<KeyStore>;
  /** The account's users, sessions, application and activity, beside the API keys. */
  openAccountStore(): Promise<AccountStore>;
  /** keys.db in the data directory, when the API keys are kept elsewhere: keys minted into it before they moved. */
  readonly keysLeftBehindIn: string | undefined;
}

/** Where the event log is kept, as stored (personal fields sealed). */
export interface EventStoreBackend {
  readonly server: BackendServer | undefined;
  open(environment: Environment): EventStore;
  /** Seals in place, with `dataKeys`, a log written before per-subject encryption; how many events it sealed. */
  upgrade(environment: Environment, dataKeys: DataKeyStore): Promise<number>;
  /** The file that holds the log, undefined on a server: operator commands check it exists rather than make it empty. */
  file(environment: Environment): string | undefined;
}

/** Where the bus between the log and the webhook dispatcher runs. */
export interface BusBackend {
  readonly server: BackendServer | undefined;
  /** `redeliverAfterMs`: how long a message handed to a consumer stays its own before another may have it. */
  open(environment: Environment, options: { redeliverAfterMs: number; logger: Logger }): Promise<Bus>;
}
