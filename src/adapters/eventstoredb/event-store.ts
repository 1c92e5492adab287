import {
  type AppendResult as ClientAppendResult,
  type AppendExpectedRevision,
  BACKWARDS,
  CancelledError,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  streamNameFilter,
} from '@eventstore/db-client';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamRead,
  type SubscribeOptions,
  WrongExpectedRevisionError,
} from '../../ports/event-store.js';
import { sendWithRetry } from './append-retry.js';
import {
  CheckpointMark,
  type StoredEvent,
  decodePosition,
  encodePosition,
  fromCurrentRevision,
  fromStoredEvent,
  fromSubscriptionItem,
  toEventData,
  toExpectedRevision,
} from './mapping.js';

/** $all pages read when looking for this environment's events among everyone's. */
const PAGE = 500;
const RESUBSCRIBE_DELAY_MS = 1000;
/**
 * Server checkpoints of the filtered subscription come every this many search windows (32 events each by
 * default): about every thousand events of the other environment, or of other users of the server.
 */
const CHECKPOINT_INTERVAL = 32;

/** One append as it is sent, and sent again: the events (with their ids) and the expected revision are fixed once. */
interface AppendRequest {
  streamName: string;
  events: ReturnType<typeof toEventData>[];
  expectedRevision: AppendExpectedRevision;
}

/**
 * The event store on EventStoreDB. Each environment's streams carry a prefix (`sandbox.`, `production.`),
 * so one server holds both apart and a $all subscription filters to its own. The catch-up subscription
 * is consumed with `for await` (one event at a time) and resubscribes from the last position it yielded,
 * or the server's last checkpoint past it, when the server drops it. Appends are retried (see appendToStream).
 */
export class EventStoreDbEventStore implements EventStore {
  constructor(
    private readonly client: EventStoreDBClient,
    private readonly streamPrefix: string,
  ) {}

  static connect(url: string, streamPrefix: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url), streamPrefix);
  }

  /**
   * Sent again with the same event ids and expected revision after a lost reply (see sendWithRetry), so an
   * append that landed is answered as landed and stored once. `any` appends are deduplicated by the server
   * only while it remembers their ids, which covers a resend seconds later.
   */
  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const request: AppendRequest = { streamName: this.streamPrefix + streamName, events: events.map(toEventData), expectedRevision: toExpectedRevision(expected) };
    try {
      const { result, attempts } = await sendWithRetry((sent: AppendRequest) => this.send(sent), request);
      // A resend answered from the server's idempotency check carries the position of a record, or none, not
      // always the one the first send would have answered: the stream says where our last event is.
      const position = attempts === 1 && result.position !== undefined ? encodePosition(result.position) : await this.positionOf(request, result.nextExpectedRevision);
      return { nextRevision: result.nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw new WrongExpectedRevisionError(streamName, expected, fromCurrentRevision(error.actualVersion));
      }
      throw error;
    }
  }

  private send({ streamName, events, expectedRevision }: AppendRequest): Promise<ClientAppendResult> {
    return this.client.appendToStream(streamName, events, { expectedRevision });
  }

  /** The $all position of the request's last event, read back from its stream at `revision`. */
  private async positionOf(request: AppendRequest, revision: bigint): Promise<bigint> {
    const lastId = request.events.at(-1)?.id;
    for await (const resolved of this.client.readStream(request.streamName, { direction: BACKWARDS, fromRevision: revision, maxCount: 1 })) {
      if (resolved.event?.id === lastId && resolved.event?.position !== undefined) return encodePosition(resolved.event.position);
    }
    throw new Error(`EventStoreDB answered an append to ${request.streamName} without the position of its last event, and the stream does not show it`);
  }

  async readStream(streamName: string): Promise<StreamRead> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(this.streamPrefix + streamName, { direction: FORWARDS, fromRevision: START })) {
        if (resolved.event) events.push(fromStoredEvent(resolved.event as StoredEvent, this.streamPrefix));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { revision: -1n, events: [] };
      throw error;
    }
    return { revision: events.at(-1)?.revision ?? -1n, events };
  }

  /** $all cannot be filtered server-side on reads, so pages are read and this environment's events kept. */
  async readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    let from = after;
    for (;;) {
      let read = 0;
      for await (const resolved of this.client.readAll({ fromPosition: from === undefined ? START : decodePosition(from), maxCount: PAGE, direction: FORWARDS })) {
        read += 1;
        const event = resolved.event;
        if (!event) continue;
        const position = encodePosition(event.position);
        // Reads include the event at fromPosition; the port's `after` excludes it.
        if (from !== undefined && position <= from) continue;
        from = position;
        if (event.streamId.startsWith(this.streamPrefix)) found.push(fromStoredEvent(event as StoredEvent, this.streamPrefix));
        if (found.length === limit) return found;
      }
      if (read < PAGE) return found;
    }
  }

  /**
   * The server filters $all to this environment's prefix and, every CHECKPOINT_INTERVAL windows it searched,
   * says how far it got: that reaches `onCheckpoint` in order with the events, and a resubscription resumes
   * from it, so neither searches the other environment's events again.
   */
  async *subscribeToAll({ after, signal, onCheckpoint }: SubscribeOptions): AsyncIterable<RecordedEvent> {
    let last = after;
    while (!signal.aborted) {
      const subscription = this.client.subscribeToAll({
        fromPosition: last === undefined ? START : decodePosition(last),
        filter: streamNameFilter({
          prefixes: [this.streamPrefix],
          checkpointInterval: CHECKPOINT_INTERVAL,
          // Pushed into the subscription's own output, behind every event the server sent before the checkpoint.
          checkpointReached: (output, position) => {
            output.push(new CheckpointMark(position));
          },
        }),
      });
      const stop = () => void subscription.unsubscribe();
      signal.addEventListener('abort', stop, { once: true });
      try {
        for await (const resolved of subscription as AsyncIterable<{ event?: StoredEvent } | CheckpointMark>) {
          const item = fromSubscriptionItem(resolved, this.streamPrefix, last);
          if (item.kind === 'seen') continue;
          if (item.kind === 'checkpoint') {
            last = item.position;
            onCheckpoint?.(item.position);
            continue;
          }
          last = item.event.position;
          yield item.event;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (!(error instanceof UnavailableError || error instanceof CancelledError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, RESUBSCRIBE_DELAY_MS));
      } finally {
        signal.removeEventListener('abort', stop);
        await subscription.unsubscribe();
      }
    }
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({ maxCount: 1 })) break;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
