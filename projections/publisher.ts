import type { ScoringCompleted } from '../src/domain/assessment.js';
import type { Bus } from '../src/ports/bus.js';
import type { Reactor } from './projection.js';

/** The bus message that asks the dispatcher to deliver an event to the environment's endpoints. */
export interface EventMessage {
  event_id: string;
}

/**
 * Publishes each completion to the bus with the event id as message id: a replay publishes the same id,
 * which the bus stores once. A profile rebuild appends other events, so it never publishes again.
 */
export function publisherReactor(bus: Bus): Reactor {
  return {
    name: 'publisher',
    canHandle: ['ScoringCompleted'],
    async react(event) {
      const { event_id } = (event.data as ScoringCompleted['data']);
      await bus.publish('events', event_id, { event_id } satisfies EventMessage);
    },
  };
}
