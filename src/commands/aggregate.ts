import type { EventStore, ExpectedRevision, RecordedEvent } from '../ports/event-store.js';

export interface DomainEvent {
  type: string;
  data: unknown;
}

/** Each event type of an aggregate, named once: the compiler checks the names against the aggregate's union, none missing. */
export type EventTypes<Event extends DomainEvent> = Record<Event['type'], true>;

export interface Aggregate<State, Event extends DomainEvent> {
  initial: State;
  evolve(state: State, event: Event): State;
  /** What a read of the aggregate's stream checks each event against. */
  types: EventTypes<Event>;
}

/** One of the aggregate's events as the store recorded it. */
export type Recorded<Event extends DomainEvent> = RecordedEvent & Event;

/** An aggregate's stream as read: its revision (-1n when it does not exist) and its events, typed. */
export interface AggregateRead<Event extends DomainEvent> {
  revision: bigint;
  events: Recorded<Event>[];
}

/**
 * The aggregate's stream, its events typed by their type names. Only the aggregate's own decisions append to
 * its stream, so the name vouches for the data; an event of another type is a fault, not something to fold.
 */
export async function readAggregate<Event extends DomainEvent>(
  store: EventStore,
  streamName: string,
  aggregate: { types: EventTypes<Event> },
): Promise<AggregateRead<Event>> {
  const read = await store.readStream(streamName);
  const events: Recorded<Event>[] = [];
  for (const event of read.events) {
    if (!isOneOf(aggregate.types, event)) throw new Error(`stream ${streamName} holds a ${event.type} event, none of its aggregate's`);
    events.push(event);
  }
  return { revision: read.revision, events };
}

function isOneOf<Event extends DomainEvent>(types: EventTypes<Event>, event: RecordedEvent): event is Recorded<Event> {
  return Object.hasOwn(types, event.type);
}

export function fold<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, events: readonly Event[]): State {
  return events.reduce(aggregate.evolve, aggregate.initial);
}

/** The revision to append at after reading `read`: no stream yet, or the stream as it was read. */
export function expectedAfter(read: { revision: bigint }): ExpectedRevision {
  return read.revision === -1n ? 'no_stream' : read.revision;
}
