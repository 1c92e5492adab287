import { appendOnce } from '../commands/append-once.js';
import type { EventType } from '../domain/webhook-endpoint.js';
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
 * The event types some enabled endpoint of the environment listens to, as of `position` (the endpoints registered
 * up to it included); undefined when that cannot be told in good time (then everything is published).
 */
export type Listening = (position: bigint) => Promise<ReadonlySet<EventType> | undefined>;

/**
 * Published whether or not an endpoint listens: these are the events a caller fetches, redelivers and counts on.
 * A lifecycle event no endpoint listens to when it happens would reach no one (an endpoint gets only the events
 * after its registration, while enabled): it is listed under /v1/nature/events, and not published.
 */
const ALWAYS: ReadonlySet<EventType> = new Set([
  'nature.assessment.completed',
  'nature.profile.updated',
  'situational.assessment.completed',
]);

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
export function publisherReactor(events: EventStore, bus: Bus, listening?: Listening): Reactor<Announced> {
  const unpublished = async ({ id }: WebhookEvent) => (await events.readStream(notificationStream(id))).revision === -1n;
  const publishAll = async (page: Notified[]): Promise<void> => {
    // The very documents the events projection writes, so a webhook and GET /v1/nature/events/{id} agree byte for byte.
    const all = page.map((event) => ({ event: eventDocument(event), position: String(event.position) }) satisfies EventMessage);
    const heard =
      listening === undefined || all.every(({ event }) => ALWAYS.has(event.type)) ? undefined : await listening(page.at(-1)!.position);
    const announced = heard === undefined ? all : all.filter(({ event }) => ALWAYS.has(event.type) || heard.has(event.type));
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
