import { appendOnce } from '../commands/append-once.js';
import type { Bus } from '../ports/bus.js';
import type { WebhookEvent } from '../ports/collections.js';
import type { EventStore, Recorded } from '../ports/event-store.js';
import type { Reactor } from '../ports/projection.js';
import type { EventMessage } from '../webhooks/messages.js';
import { type Announced, announcedTypes, eventDocument, isAnnounced } from './events.js';

/** Marks in the log that an event went to the bus: `notification-<evt id>`, one event, never rewritten. */
export type NotificationPublished = { type: 'NotificationPublished'; data: { event_id: string } };

export function notificationStream(eventId: string): string {
  return `notification-${eventId}`;
}

type Notified = Recorded<Announced>;

/**
 * Publishes each event callers are told of (a completion, a profile update, a situational outcome, a subject's or an
 * assessment's lifecycle) to the bus (message id = event id), once: the publication is recorded in the
 * log, so neither a replay nor a rebuild of the read models (where this reactor's checkpoint lives)
 * publishes it again. A crash between the publish and the record publishes twice, which the bus's
 * duplicate window absorbs and receivers dedupe on webhook-id.
 *
 * A page of the log is published at once: its messages side by side (one round trip on a networked bus),
 * then their records side by side (one group commit), so the webhooks keep pace with many callers.
 *
 * The message carries the event object and its log position, so the dispatcher can deliver at once,
 * whether or not the projector has written the `events` document yet.
 */
export function publisherReactor(events: EventStore, bus: Bus): Reactor<Announced> {
  const unpublished = async ({ id }: WebhookEvent) => (await events.readStream(notificationStream(id))).revision === -1n;
  const publishAll = async (page: Notified[]): Promise<void> => {
    // The very documents the events projection writes, so a webhook and GET /v1/nature/events/{id} agree byte for byte.
    const announced = page.map((event) => ({ event: eventDocument(event), position: String(event.position) }) satisfies EventMessage);
    const seen = await Promise.all(announced.map(({ event }) => unpublished(event)));
    const due = announced.filter((_, i) => seen[i]);
    await Promise.all(due.map((message) => bus.publish('events', message.event.id, message)));
    await Promise.all(
      due.map(({ event: { id: event_id } }) => {
        const published: NotificationPublished = { type: 'NotificationPublished', data: { event_id } };
        return appendOnce(events, notificationStream(event_id), [published], { causation: 'publisher' });
      }),
    );
  };
  return {
    name: 'publisher',
    canHandle: announcedTypes,
    acts: isAnnounced,
    react: (event) => publishAll([event]),
    reactAll: publishAll,
  };
}
