import type { WebhookEvent } from './event-object.js';

/**
 * An `events` message: fan the event out to the endpoints registered before it. Published from the log,
 * it carries the event and its log position (a bigint, in decimal), so the fan-out reads neither the
 * `events` read model nor the log. A redelivery (or a message queued before messages carried events)
 * names the event only, and the dispatcher looks it up.
 */
export type EventMessage = { event: WebhookEvent; position: string } | { event_id: string };

/**
 * A `deliveries` message: send the event to one endpoint. The fan-out's messages carry the event; a
 * redelivery to one endpoint names it. A test event (`test: true`) is sent once, whatever the endpoint's status.
 */
export type DeliveryMessage = { endpoint_id: string; test?: true } & ({ event: WebhookEvent } | { event_id: string });
