import {
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
import { type StoredEvent, decodePosition, encodePosition, fromCurrentRevision, fromStoredEvent, toEventData, toExpectedRevision } from './mapping.js';

/** $all pages read when looking for this environment's events among everyone's. */
const PAGE = 500;
const RESUBSCRIBE_DELAY_MS = 1000;

/**
 * The event store on EventStoreDB. Each environment's streams carry a prefix (`sandbox.`, `production.`),
 * so one server holds both apart and a $all subscription filters to its own. The catch-up subscription
 * is consumed with `for await` (one event at a time) and resubscribes from the last position it yielded
 * when the server drops it.
 */
export class EventStoreDbEventStore implements EventStore {
  constructor(
    private readonly client: EventStoreDBClient,
    private readonly streamPrefix: string,
  ) {}

  static connect(url: string, streamPrefix: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url), streamPrefix);
  }

  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(this.streamPrefix + streamName, events.map(toEventData), {
        expectedRevision: toExpectedRevision(expected),
      });
      if (result.position === undefined) throw new Error('EventStoreDB answered an append without its position');
      return { nextRevision: result.nextExpectedRevision, position: encodePosition(result.position) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw new WrongExpectedRevisionError(streamName, expected, fromCurrentRevision(error.actualVersion));
      }
      throw error;
    }
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

  async *subscribeToAll({ after, signal }: SubscribeOptions): AsyncIterable<RecordedEvent> {
    let last = after;
    while (!signal.aborted) {
      const subscription = this.client.subscribeToAll({
        fromPosition: last === undefined ? START : decodePosition(last),
        filter: streamNameFilter({ prefixes: [this.streamPrefix] }),
      });
      const stop = () => void subscription.unsubscribe();
      signal.addEventListener('abort', stop, { once: true });
      try {
        for await (const resolved of subscription) {
          const event = resolved.event;
          if (!event) continue;
          const recorded = fromStoredEvent(event as StoredEvent, this.streamPrefix);
          if (last !== undefined && recorded.position <= last) continue;
          last = recorded.position;
          yield recorded;
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
