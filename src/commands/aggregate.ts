import type { DomainEvent, EventStore, ExpectedRevision, Recorded, RecordedEvent } from '../ports/event-store.js';

/** Each event type of an aggregate, named once: the compiler checks the names against the aggregate's union, none missing. */
export type EventTypes<Event extends DomainEvent> = Record<Event['type'], true>;

export interface Aggregate<State, Event extends DomainEvent> {
  initial: State;
  evolve(state: State, event: Event): State;
  /** What a read of the aggregate's stream checks each event against. */
  types: EventTypes<Event>;
}

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

/** A state and the events it was folded from, in order. */
interface Folded {
  state: unknown;
  from: readonly object[];
}

/**
 * Each aggregate's state after the events it folded last, found by the last of them: a cache of streams
 * (privacy/opened-streams.ts) hands out the same event objects again, so a command on a stream read before
 * folds only the events appended since. Held weakly, so a state goes with its events (within the stream
 * cache's bound and lifetime, and dropped on erasure with them).
 */
const foldedUpTo = new WeakMap<object, WeakMap<object, Folded>>();

function memoOf(aggregate: object): WeakMap<object, Folded> {
  let memo = foldedUpTo.get(aggregate);
  if (memo === undefined) {
    memo = new WeakMap();
    foldedUpTo.set(aggregate, memo);
  }
  return memo;
}

/**
 * The state `events` leave, resumed from the state of the longest run of them, from the first, folded
 * before. States are shared between commands, so evolve and decide must never change one (they make new ones).
 */
export function fold<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, events: readonly Event[]): State {
  const memo = memoOf(aggregate);
  let state = aggregate.initial;
  let next = 0;
  for (let i = events.length - 1; i >= 0; i--) {
    const folded = memo.get(events[i]!);
    if (folded === undefined) continue;
    if (folded.from.length === i + 1 && folded.from.every((event, j) => event === events[j])) {
      state = folded.state as State;
      next = i + 1;
    }
    break;
  }
  for (let i = next; i < events.length; i++) state = aggregate.evolve(state, events[i]!);
  if (events.length > 0) memo.set(events.at(-1)!, { state, from: events.slice() });
  return state;
}

/** The revision to append at after reading `read`: no stream yet, or the stream as it was read. */
export function expectedAfter(read: { revision: bigint }): ExpectedRevision {
  return read.revision === -1n ? 'no_stream' : read.revision;
}
