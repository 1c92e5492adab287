import { evolveEndpoint, type WebhookEndpointEvent } from '../domain/webhook-endpoint.js';
import type { CollectionProjection } from '../ports/projection.js';

/** The `webhook_endpoints` collection: each endpoint's folded state; a deleted endpoint's document goes. */
export const webhookEndpointsProjection: CollectionProjection<WebhookEndpointEvent, 'webhook_endpoints'> = {
  name: 'webhook_endpoints',
  collection: 'webhook_endpoints',
  canHandle: [
    'WebhookEndpointCreated',
    'WebhookEndpointDisabled',
    'WebhookEndpointEnabled',
    'WebhookEndpointUpdated',
    'WebhookEndpointSecretRotated',
    'WebhookEndpointDeleted',
  ],
  documentId: (event) => event.data.endpoint_id,
  evolve: (current, event) => evolveEndpoint(current, event) ?? null,
};
