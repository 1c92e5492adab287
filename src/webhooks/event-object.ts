import type { WebhookEvent } from '../ports/collections.js';

/** The event object as the API lists it and as a webhook delivers it. */
export function eventObject(event: WebhookEvent, livemode: boolean) {
  return { id: event.id, object: 'event' as const, type: event.type, created_at: event.created_at, livemode, data: event.data };
}
