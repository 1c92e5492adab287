import { DomainError } from './errors.js';

/** nature.profile.updated comes only from profile rebuilds, so endpoints opt in to it. */
export const eventTypes = ['nature.assessment.completed', 'nature.profile.updated'] as const;
export type EventType = (typeof eventTypes)[number];

export type WebhookEndpointCreated = {
  type: 'WebhookEndpointCreated';
  data: {
    endpoint_id: string;
    url: string;
    enabled_events: EventType[];
    description: string | null;
    /** The signing secret: the dispatcher needs it, the API shows it only in the create response. */
    secret: string;
    created_at: string;
  };
};
/** The service stopped delivering to the endpoint (it answered 410 Gone). */
export type WebhookEndpointDisabled = { type: 'WebhookEndpointDisabled'; data: { endpoint_id: string; reason: string; disabled_at: string } };
export type WebhookEndpointDeleted = { type: 'WebhookEndpointDeleted'; data: { endpoint_id: string; deleted_at: string } };

export type WebhookEndpointEvent = WebhookEndpointCreated | WebhookEndpointDisabled | WebhookEndpointDeleted;

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabled_events: EventType[];
  description: string | null;
  secret: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
}

/** Undefined before creation and after deletion. */
export type WebhookEndpointState = WebhookEndpoint | undefined;

export function endpointStream(endpointId: string): string {
  return `webhook_endpoint-${endpointId}`;
}

export function evolveEndpoint(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated': {
      const { endpoint_id, ...rest } = event.data;
      return { id: endpoint_id, ...rest, status: 'enabled', disabled_reason: null };
    }
    case 'WebhookEndpointDisabled':
      return state && { ...state, status: 'disabled', disabled_reason: event.data.reason };
    case 'WebhookEndpointDeleted':
      return undefined;
  }
}

export function decideDeleteEndpoint(state: WebhookEndpointState, endpointId: string, now: Date): WebhookEndpointEvent[] {
  if (state === undefined) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  return [{ type: 'WebhookEndpointDeleted', data: { endpoint_id: state.id, deleted_at: now.toISOString() } }];
}

/** Disabling twice, or a deleted endpoint, decides nothing. */
export function decideDisableEndpoint(state: WebhookEndpointState, reason: string, now: Date): WebhookEndpointEvent[] {
  if (state?.status !== 'enabled') return [];
  return [{ type: 'WebhookEndpointDisabled', data: { endpoint_id: state.id, reason, disabled_at: now.toISOString() } }];
}

export function subscribes(endpoint: WebhookEndpoint, type: EventType): boolean {
  return endpoint.status === 'enabled' && endpoint.enabled_events.includes(type);
}
