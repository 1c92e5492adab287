import { appendOnce } from '../src/commands/append-once.js';
import type { ProfileUpdated, ScoringCompleted } from '../src/domain/assessment.js';
import type { Bus } from '../src/ports/bus.js';
import type { EventStore } from '../src/ports/event-store.js';
import type { Reactor } from '../src/ports/projection.js';
import type { EventMessage } from '../src/webhooks/messages.js';
import { eventsProjection } from './events.js';

/** Marks in the log that an event went to the bus: `notification-<evt id>`, one event, never rewritten. */
export type NotificationPublished = { type: 'NotificationPublished'; data: { event_id: string } };

export function notificationStream(eventId: string): string {
  return `notification-${eventId}`;
}

/**
 * Publishes each completion and profile update to the bus (message id = event id), once: the publication is recorded in the
 * log, so neither a replay nor a rebuild of the read models (where this reactor's checkpoint lives)
 * publishes it again. A crash between the publish and the record publishes twice, which the bus's
 * duplicate window absorbs and receivers dedupe on webhook-id.
 *
 * The message carries the event object and its log position, so the dispatcher can deliver at once,
 * whether or not the projector has written the `events` document yet.
 */
export function publisherReactor(events: EventStore, bus: Bus): Reactor<ScoringCompleted | ProfileUpdated> {
  return {
    name: 'publisher',
    canHandle: ['ScoringCompleted', 'ProfileUpdated'],
    async react(event) {
      const { event_id } = event.data;
      const stream = notificationStream(event_id);
      if ((await events.readStream(stream)).revision !== -1n) return;
      // The very document the events projection writes, so a webhook and GET /v1/nature/events/{id} agree byte for byte.
      const webhookEvent = eventsProjection.evolve(undefined, event)!;
      await bus.publish('events', event_id, { event: webhookEvent, position: String(event.position) } satisfies EventMessage);
      const published: NotificationPublished = { type: 'NotificationPublished', data: { event_id } };
      await appendOnce(events, stream, [published], { causation: 'publisher' });
    },
  };
}
