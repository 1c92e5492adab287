import type { WebhookDeliveryAttempted } from '../domain/webhook-delivery.js';
import type { CollectionProjection } from '../ports/projection.js';

/** The `webhook_deliveries` collection: one document per attempt, listed per endpoint. */
export const webhookDeliveriesProjection: CollectionProjection<WebhookDeliveryAttempted, 'webhook_deliveries'> = {
  name: 'webhook_deliveries',
  collection: 'webhook_deliveries',
  canHandle: ['WebhookDeliveryAttempted'],
  documentId: (event) => event.data.delivery_id,
  evolve(_current, event) {
    const { delivery_id, ...rest } = event.data;
    return { id: delivery_id, ...rest };
  },
};
