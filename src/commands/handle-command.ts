import { randomUUID } from 'node:crypto';
import type { AppendResult, DomainEvent, EventMetadata, EventStore, NewEvent, Recorded } from '../ports/event-store.js';
import { type Aggregate, expectedAfter, fold, readAggregate } from './aggregate.js';
import { retryOnConflict } from './conflict-retry.js';
import { type Produced, producedBy } from './idempotent-retry.js';

export interface CommandResult<State, Event> {
  /** The state the events were decided on. */
  decidedOn: State;
  /** The state they left. */
  state: State;
  events: Event[];
  /** Undefined when the decision appended nothing. */
  appended: AppendResult | undefined;
  /** When the request was first decided, for a retry that found the events its Idempotency-Key produced (see producedBy). */
  replayedAt?: Date;
}

/**
 * Load, decide, append with the expected revision; on a concurrent append, load and decide again (retryOnConflict).
 * `decide` must be pure: it may run more than once. A retry of a request whose events are already in the
 * stream (its Idempotency-Key's tag says so, within the key's time to live at `now`) decides nothing: it
 * answers what those events left. Each event carries `metadata`, or what `metadataOf` gives it.
 */
export async function handleCommand<State, Event extends DomainEvent>(
  store: EventStore,
  streamName: string,
  aggregate: Aggregate<State, Event>,
  decide: (state: State) => Event[],
  metadata: EventMetadata,
  now: Date,
  metadataOf: (event: Event) => EventMetadata = () => metadata,
): Promise<CommandResult<State, Event>> {
  return retryOnConflict(async () => {
    const stream = await readAggregate(store, streamName, aggregate);
    const earlier = producedBy(stream.events, metadata, now);
    if (earlier !== undefined) return replayed(aggregate, stream.events, earlier);
    const state = fold(aggregate, stream.events);
    const events = decide(state);
    if (events.length === 0) return { decidedOn: state, state, events, appended: undefined };
    const recorded = events.flatMap((event) => toNewEvents([event], metadataOf(event)));
    const appended = await store.appendToStream(streamName, recorded, expectedAfter(stream));
    return { decidedOn: state, state: events.reduce(aggregate.evolve, state), events, appended };
  });
}

/** What a request that appended `earlier` decided, on the state it decided on, as it was answered then. */
function replayed<State, Event extends DomainEvent>(
  aggregate: Aggregate<State, Event>,
  events: readonly Recorded<Event>[],
  earlier: Produced,
): CommandResult<State, Event> {
  const decidedOn = fold(aggregate, events.slice(0, earlier.first));
  const produced = events.slice(earlier.first, earlier.last + 1);
  const last = events[earlier.last]!;
  return {
    decidedOn,
    state: produced.reduce(aggregate.evolve, decidedOn),
    events: produced,
    appended: { nextRevision: last.revision, position: last.position },
    replayedAt: earlier.at,
  };
}

/** Domain events as the store takes them: each with a fresh id and the request's metadata. */
export function toNewEvents(events: readonly DomainEvent[], metadata: EventMetadata): NewEvent[] {
  return events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata }));
}
