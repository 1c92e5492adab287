import { evolveEndpoint, type WebhookEndpoint, type WebhookEndpointEvent } from '../src/domain/webhook-endpoint.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';
import type { Projection } from './projection.js';

/** The `webhook_endpoints` collection: each endpoint's folded state; a deleted endpoint's document goes. */
export const webhookEndpointsProjection: Projection = {
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
  documentId: (event) => (event.data as WebhookEndpointEvent['data']).endpoint_id,
  evolve: (current: Document | undefined, event: RecordedEvent) =>
    (evolveEndpoint(current as WebhookEndpoint | undefined, event as unknown as WebhookEndpointEvent) ?? null) as Document | null,
};
