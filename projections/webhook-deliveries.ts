import type { WebhookDeliveryAttempted } from '../src/domain/webhook-delivery.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Projection } from './projection.js';

/** The `webhook_deliveries` collection: one document per attempt, listed per endpoint. */
export const webhookDeliveriesProjection: Projection = {
  name: 'webhook_deliveries',
  collection: 'webhook_deliveries',
  canHandle: ['WebhookDeliveryAttempted'],
  documentId: (event) => (event.data as WebhookDeliveryAttempted['data']).delivery_id,
  evolve: (_current, event: RecordedEvent) => {
    const { delivery_id, ...rest } = (event as unknown as WebhookDeliveryAttempted).data;
    return { id: delivery_id, ...rest };
  },
};
