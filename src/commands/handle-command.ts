import { randomUUID } from 'node:crypto';
import type { AppendResult, EventMetadata, EventStore, NewEvent, RecordedEvent } from '../ports/event-store.js';
import { WrongExpectedRevisionError } from '../ports/event-store.js';
import { producedBy } from './idempotent-retry.js';

export interface DomainEvent {
  type: string;
  data: unknown;
}

export interface Aggregate<State, Event extends DomainEvent> {
  initial: State;
  evolve(state: State, event: Event): State;
}

export interface CommandResult<State, Event> {
  state: State;
  events: Event[];
  /** Undefined when the decision appended nothing. */
  appended: AppendResult | undefined;
  /** When the request was first decided, for a retry that found the events its Idempotency-Key produced (see producedBy). */
  replayedAt?: Date;
}

const MAX_ATTEMPTS = 20;

/**
 * Load, decide, append with the expected revision; on a concurrent append, load and decide again.
 * `decide` must be pure: it may run more than once. A retry of a request whose events are already in the
 * stream (its Idempotency-Key's tag says so, within the key's time to live at `now`) decides nothing: it
 * answers what those events left.
 */
export async function handleCommand<State, Event extends DomainEvent>(
  store: EventStore,
  streamName: string,
  aggregate: Aggregate<State, Event>,
  decide: (state: State) => Event[],
  metadata: EventMetadata,
  now: Date = new Date(),
): Promise<CommandResult<State, Event>> {
  for (let attempt = 1; ; attempt++) {
    const stream = await store.readStream(streamName);
    const earlier = producedBy(stream.events, metadata, now);
    if (earlier !== undefined) return replayed(aggregate, stream.events, earlier);
    const state = fold(aggregate, stream.events);
    const events = decide(state);
    if (events.length === 0) return { state, events, appended: undefined };
    try {
      const appended = await store.appendToStream(
        streamName,
        toNewEvents(events, metadata),
        stream.revision === -1n ? 'no_stream' : stream.revision,
      );
      return { state: events.reduce(aggregate.evolve, state), events, appended };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** What a request that appended `earlier` decided: the state its events left, as it was answered then. */
function replayed<State, Event extends DomainEvent>(
  aggregate: Aggregate<State, Event>,
  events: readonly RecordedEvent[],
  earlier: { first: number; last: number; at: Date },
): CommandResult<State, Event> {
  const last = events[earlier.last]!;
  return {
    state: fold(aggregate, events.slice(0, earlier.last + 1)),
    events: events.slice(earlier.first, earlier.last + 1) as unknown as Event[],
    appended: { nextRevision: last.revision, position: last.position },
    replayedAt: earlier.at,
  };
}

export function fold<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, events: readonly RecordedEvent[]): State {
  return events.reduce((state, event) => aggregate.evolve(state, event as unknown as Event), aggregate.initial);
}

/** Domain events as the store takes them: each with a fresh id and the request's metadata. */
export function toNewEvents(events: readonly DomainEvent[], metadata: EventMetadata): NewEvent[] {
  return events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata }));
}
