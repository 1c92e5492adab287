import type { WebhookEndpointCreated } from '../../src/domain/webhook-endpoint.js';

/** The endpoint `whe_1` registered at `createdAt` with `secret`, listening to completions: the start of the endpoint rule tests. */
export function endpointCreated(secret: string, createdAt: Date): WebhookEndpointCreated {
  return {
    type: 'WebhookEndpointCreated',
    data: {
      endpoint_id: 'whe_1',
      url: 'https://x.example/h',
      enabled_events: ['nature.assessment.completed'],
      description: null,
      secret,
      created_at: createdAt.toISOString(),
    },
  };
}
