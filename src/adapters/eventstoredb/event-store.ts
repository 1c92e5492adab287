import {
  type AppendExpectedRevision,
  BACKWARDS,
  type AppendResult as ClientAppendResult,
  StreamDeletedError as ClientStreamDeletedError,
  EventStoreDBClient,
  FORWARDS,
  type Position,
  START,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  type AppendResult,
  appendInSequence,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  StreamDeletedError,
  type StreamRead,
  type SubscribeOptions,
  WrongExpectedRevisionError,
} from '../../ports/event-store.js';
import { type AppendRetryPolicy, appendRetryPolicy, sendWithRetry } from './append-retry.js';
import { readAllFiltered, readEvents } from './filtered-read.js';
import {
  CheckpointMark,
  decodePosition,
  encodePosition,
  fromCurrentRevision,
  fromStoredEvent,
  type StoredEvent,
  toEventData,
  toExpectedRevision,
} from './mapping.js';
import { follow, type OpenedSubscription, type SubscriptionOutput } from './subscription.js';

/**
 * Server checkpoints of the filtered subscription come every this many search windows (32 events each by
 * default): about every thousand events of the other environment, or of other users of the server.
 */
const CHECKPOINT_INTERVAL = 32;

/** Where the server is and how long an append may take, resends included (EVENTSTORE_URL, EVENTSTORE_APPEND_RETRY_MS). */
export interface EventStoreDbSettings {
  url: string;
  appendRetryMs: number;
}

/** One append as it is sent, and sent again: the events (with their ids) and the expected revision are fixed once. */
interface AppendRequest {
  streamName: string;
  events: ReturnType<typeof toEventData>[];
  expectedRevision: AppendExpectedRevision;
}

/**
 * The event store on EventStoreDB. Each environment's streams carry a prefix (`sandbox.`, `production.`),
 * so one server holds both apart, and the server filters every read and subscription of $all to its own. The catch-up
 * subscription is consumed with `for await` (one event at a time) and opened again when the server drops it
 * (see follow). Appends are retried within the append's time (see appendToStream).
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly appendRetry: AppendRetryPolicy;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly streamPrefix: string,
    appendRetryMs: number,
  ) {
    this.appendRetry = appendRetryPolicy(appendRetryMs);
  }

  static connect({ url, appendRetryMs }: EventStoreDbSettings, streamPrefix: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url), streamPrefix, appendRetryMs);
  }

  /**
   * Sent again with the same event ids and expected revision after a lost reply (see sendWithRetry), so an
   * append that landed is answered as landed and stored once. `any` appends are deduplicated by the server
   * only while it remembers their ids, which covers a resend seconds later.
   */
  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const request: AppendRequest = {
      streamName: this.streamPrefix + streamName,
      events: events.map(toEventData),
      expectedRevision: toExpectedRevision(expected),
    };
    try {
      const { result, attempts } = await sendWithRetry(
        (sent: AppendRequest, deadline: number) => this.send(sent, deadline),
        request,
        this.appendRetry,
      );
      // A resend answered from the server's idempotency check carries the position of a record, or none, not
      // always the one the first send would have answered: the stream says where our last event is.
      const position =
        attempts === 1 && result.position !== undefined
          ? encodePosition(result.position)
          : await this.positionOf(request, result.nextExpectedRevision);
      return { nextRevision: result.nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw new WrongExpectedRevisionError(streamName, expected, fromCurrentRevision(error.actualVersion));
      }
      if (error instanceof ClientStreamDeletedError) throw new StreamDeletedError(streamName);
      throw error;
    }
  }

  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return appendInSequence(this, appends);
  }

  private send({ streamName, events, expectedRevision }: AppendRequest, deadline: number): Promise<ClientAppendResult> {
    return this.client.appendToStream(streamName, events, { expectedRevision, deadline });
  }

  /** The $all position of the request's last event, read back from its stream at `revision`. */
  private async positionOf(request: AppendRequest, revision: bigint): Promise<bigint> {
    const lastId = request.events.at(-1)?.id;
    for await (const resolved of this.client.readStream(request.streamName, {
      direction: BACKWARDS,
      fromRevision: revision,
      maxCount: 1,
    })) {
      if (resolved.event?.id === lastId && resolved.event?.position !== undefined) return encodePosition(resolved.event.position);
    }
    throw new Error(
      `EventStoreDB answered an append to ${request.streamName} without the position of its last event, and the stream does not show it`,
    );
  }

  async readStream(streamName: string, { fromRevision }: ReadStreamOptions = {}): Promise<StreamRead> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(this.streamPrefix + streamName, {
        direction: FORWARDS,
        fromRevision: fromRevision ?? START,
      })) {
        if (resolved.event) events.push(fromStoredEvent(resolved.event as StoredEvent, this.streamPrefix));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { revision: -1n, events: [] };
      if (error instanceof ClientStreamDeletedError) throw new StreamDeletedError(streamName);
      throw error;
    }
    // Nothing at or after fromRevision in a stream that exists (else StreamNotFound): it ends just before.
    return { revision: events.at(-1)?.revision ?? (fromRevision === undefined ? -1n : fromRevision - 1n), events };
  }

  /** The server reads $all for this environment's streams only (see readEvents). */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const read = (from: Position | undefined, maxCount: number) =>
      readAllFiltered(this.client, this.streamPrefix, from, maxCount) as AsyncIterable<{ event?: StoredEvent }>;
    return readEvents(read, this.streamPrefix, options);
  }

  /**
   * The server filters $all to this environment's prefix and, every CHECKPOINT_INTERVAL windows it searched,
   * says how far it got: that reaches `onCheckpoint` in order with the events, and a resubscription resumes
   * from it, so neither searches the other environment's events again.
   */
  subscribeToAll(options: SubscribeOptions): AsyncIterable<RecordedEvent> {
    return follow((after) => this.open(after), this.streamPrefix, options);
  }

  private open(after: bigint | undefined): OpenedSubscription {
    const subscription = this.client.subscribeToAll({
      fromPosition: after === undefined ? START : decodePosition(after),
      filter: streamNameFilter({
        prefixes: [this.streamPrefix],
        checkpointInterval: CHECKPOINT_INTERVAL,
        // Pushed into the subscription's own output, behind every event the server sent before the checkpoint.
        checkpointReached: (output, position) => {
          output.push(new CheckpointMark(position));
        },
      }),
    });
    return { output: subscription as AsyncIterable<SubscriptionOutput>, close: () => subscription.unsubscribe() };
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({ maxCount: 1 })) break;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
