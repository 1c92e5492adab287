import { z } from 'zod';
import { eventTypes } from '../domain/webhook-endpoint.js';
import type { WebhookEvent } from '../ports/collections.js';

/** Loose: a field this version does not know (one a newer replica added) is carried on, never dropped. */
const webhookEvent = z.looseObject({
  id: z.string().min(1),
  type: z.enum(eventTypes),
  created_at: z.string(),
  // Every type's data names its subject; the rest is carried as it came (the type says what it holds).
  data: z.looseObject({ subject_id: z.string() }),
});

/**
 * An `events` message: fan the event out to the endpoints registered before it. Published from the log,
 * it carries the event and its log position (a bigint, in decimal), so the fan-out reads neither the
 * `events` read model nor the log. A redelivery (or a message queued before messages carried events)
 * names the event only, and the dispatcher looks it up.
 */
export type EventMessage = { event: WebhookEvent; position: string } | { event_id: string };
export const eventMessage = z.union([
  z.object({ event: webhookEvent, position: z.string().regex(/^\d+$/) }),
  z.object({ event_id: z.string().min(1) }),
]);

/**
 * A `deliveries` message: send the event to one endpoint. The fan-out's messages carry the event; a
 * redelivery to one endpoint names it. A test event (`test: true`) is sent once, whatever the endpoint's status.
 */
export type DeliveryMessage = { endpoint_id: string; test?: true } & ({ event: WebhookEvent } | { event_id: string });
export const deliveryMessage = z.intersection(
  z.object({ endpoint_id: z.string().min(1), test: z.literal(true).optional() }),
  z.union([z.object({ event: webhookEvent }), z.object({ event_id: z.string().min(1) })]),
);

/** Why a message on the bus is not one of ours, in one line: it goes to the dead letters at once. */
export function malformed(topic: string, error: z.ZodError): string {
  return `malformed ${topic} message: ${z.prettifyError(error).replace(/\s+/g, ' ')}`;
}
