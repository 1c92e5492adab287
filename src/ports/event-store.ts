/**
 * The append-only event log. Streams have revisions (0-based, per stream); the whole log has a
 * global position that only grows. Revisions and positions are bigint because EventStoreDB's are.
 */

/** What the caller expects a stream to be at before appending. */
export type ExpectedRevision = 'no_stream' | 'any' | bigint;

export interface NewEvent<Type extends string = string, Data = unknown> {
  /** A UUID chosen by the caller: appending the same ids again at the same place stores nothing new. */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

/** Who caused an event, for audit. Never personal data. */
export interface EventMetadata {
  request_id?: string;
  key_id?: string;
  /** The dashboard user who made the change (a dashboard write has no API key). */
  user_id?: string;
  /** For events caused by the service itself (the projector, a rebuild). */
  causation?: string;
  /**
   * The tag of the request's Idempotency-Key (a digest of the key and the request): a retry after a crash
   * finds the events the key produced by it, and answers what they say instead of deciding again.
   */
  idempotency?: string;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> extends NewEvent<Type, Data> {
  streamName: string;
  revision: bigint;
  position: bigint;
  /** ISO 8601 UTC, set by the store. */
  recordedAt: string;
}

/** An event as the domain declares it: its type and what it records. */
export interface DomainEvent {
  type: string;
  data: unknown;
}

/** An event of the union `E` as the store recorded it: a switch on its `type` narrows its `data`. */
export type Recorded<E extends DomainEvent> = RecordedEvent & E;

export interface AppendResult {
  /** The revision of the last event appended (the stream's new revision). */
  nextRevision: bigint;
  /** The global position of the last event appended. */
  position: bigint;
}

export interface StreamRead {
  /** The revision of the stream's last event; -1n when the stream does not exist. */
  revision: bigint;
  events: RecordedEvent[];
}

export interface ReadStreamOptions {
  /**
   * Inclusive: only the events at this revision and after, for a caller that holds those before it (the
   * revision then still says where the whole stream is).
   */
  fromRevision?: bigint;
}

/** The stream was not at the expected revision: the caller reloads, decides again and retries. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint,
  ) {
    super(`stream ${streamName} is at revision ${actual}, expected ${String(expected)}`);
  }
}

/**
 * The stream was deleted for good outside the service (an operator tombstoned it in EventStoreDB): it can be
 * neither read nor appended to again. Nothing the caller sends can change that.
 */
export class StreamDeletedError extends Error {
  override readonly name = 'StreamDeletedError';
  constructor(readonly streamName: string) {
    super(`stream ${streamName} was deleted from the event store and can no longer be read or appended to`);
  }
}

export interface ReadAllOptions {
  /** Exclusive: events with a position greater than this. Omit to read from the start. */
  after?: bigint;
  /** At most this many events. */
  limit: number;
}

export interface SubscribeOptions {
  /** Exclusive, as in readAll. */
  after?: bigint;
  signal: AbortSignal;
  /**
   * Called, between two events, when the store has searched the log up to `position` past the last event it
   * yielded and found none for this subscriber (EventStoreDB's filtered $all subscription skips the other
   * environment's events so). Every event up to `position` has been yielded by then: a subscriber that has
   * handled them may checkpoint `position`, so a restart does not search those events again.
   */
  onCheckpoint?: (position: bigint) => void;
}

/** One stream's part of an append to several streams. */
export interface StreamAppend {
  streamName: string;
  events: NewEvent[];
  expected: ExpectedRevision;
}

export interface EventStore {
  appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * One command's appends to several streams, each at its expected revision; one result per append, in order. On
   * SQLite they commit together or not at all. EventStoreDB has no transaction across streams: it appends them one
   * after another (appendInSequence), and a failure or a crash can leave the first ones alone, which the commands
   * complete on their next run, as they did before units.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  readStream(streamName: string, options?: ReadStreamOptions): Promise<StreamRead>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Every event after `after`, in position order, then every event appended later, until the
   * signal aborts (the iterator then ends). A catch-up subscription: the caller checkpoints. The
   * projector hands each event to several handlers, so treat events as read-only.
   */
  subscribeToAll(options: SubscribeOptions): AsyncIterable<RecordedEvent>;
  /**
   * Only on a log that commits the projections' changes in its appends' own transaction (PostgreSQL with the read
   * models beside it): whether the event at `position`, appended through this store, was projected so. The projector
   * then answers a write that waits on it at once, and its lanes pass over what such appends wrote.
   */
  projectedWith?(position: bigint): boolean;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** appendToStreams for a store without transactions across streams: each append after the one before has landed. */
export async function appendInSequence(
  store: Pick<EventStore, 'appendToStream'>,
  appends: readonly StreamAppend[],
): Promise<AppendResult[]> {
  const results: AppendResult[] = [];
  for (const { streamName, events, expected } of appends) results.push(await store.appendToStream(streamName, events, expected));
  return results;
}
