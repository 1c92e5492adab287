import { DomainError } from './errors.js';

/**
 * Every type an endpoint may subscribe to. Only nature.assessment.completed is sent by default: the others came later
 * (rebuilds, v1.1, lifecycle events), and an endpoint opts in to each, so no receiver meets a type it never asked for.
 */
export const eventTypes = [
  'nature.assessment.completed',
  'nature.profile.updated',
  'situational.assessment.completed',
  'nature.subject.created',
  'nature.assessment.started',
  'nature.assessment.abandoned',
  'nature.assessment.expired',
  'nature.subject.erased',
] as const;
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
/** The service stopped delivering to the endpoint: it answered 410 Gone, a delivery exhausted its retries, or the caller asked. */
export type WebhookEndpointDisabled = {
  type: 'WebhookEndpointDisabled';
  data: { endpoint_id: string; reason: string; disabled_at: string };
};
/** The caller turned a disabled endpoint back on. */
export type WebhookEndpointEnabled = { type: 'WebhookEndpointEnabled'; data: { endpoint_id: string; enabled_at: string } };
/** The fields the caller changed, and only those. */
export type WebhookEndpointUpdated = {
  type: 'WebhookEndpointUpdated';
  data: { endpoint_id: string; updated_at: string } & Partial<Pick<WebhookEndpoint, 'url' | 'enabled_events' | 'description'>>;
};
/**
 * A new signing secret; the one it replaces keeps signing too until `previous_secret_expires_at` (a time not after
 * `rotated_at`: not at all). Secrets replaced by earlier rotations stop signing at once, overlap or not.
 */
export type WebhookEndpointSecretRotated = {
  type: 'WebhookEndpointSecretRotated';
  data: { endpoint_id: string; secret: string; previous_secret_expires_at: string; rotated_at: string };
};
export type WebhookEndpointDeleted = { type: 'WebhookEndpointDeleted'; data: { endpoint_id: string; deleted_at: string } };

export type WebhookEndpointEvent =
  | WebhookEndpointCreated
  | WebhookEndpointDisabled
  | WebhookEndpointEnabled
  | WebhookEndpointUpdated
  | WebhookEndpointSecretRotated
  | WebhookEndpointDeleted;

export interface RetiringSecret {
  secret: string;
  expires_at: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabled_events: EventType[];
  description: string | null;
  secret: string;
  /** Secrets replaced by a rotation that still sign deliveries until they expire. Absent in endpoints projected before rotation existed. */
  previous_secrets?: RetiringSecret[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
}

/**
 * The id a create sent with an Idempotency-Key chose for its endpoint, held on a stream named by the key's tag
 * before the endpoint's own stream is written: a retry after a crash finds the endpoint that create made.
 */
export type WebhookEndpointIdChosen = { type: 'WebhookEndpointIdChosen'; data: { endpoint_id: string } };

export function endpointRequestStream(idempotencyTag: string): string {
  return `webhook_endpoint_request-${idempotencyTag}`;
}

/** Undefined before creation and after deletion. */
export type WebhookEndpointState = WebhookEndpoint | undefined;

export function endpointStream(endpointId: string): string {
  return `webhook_endpoint-${endpointId}`;
}

/** The secrets that sign a delivery at `now`: the current one first, then those replaced but not yet expired. */
export function signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
  return [endpoint.secret, ...retiringSecrets(endpoint, now).map((previous) => previous.secret)];
}

function retiringSecrets(endpoint: WebhookEndpoint, now: Date): RetiringSecret[] {
  return (endpoint.previous_secrets ?? []).filter((previous) => Date.parse(previous.expires_at) > now.getTime());
}

/** When the last replaced secret stops signing, or null when only the current one signs. */
export function previousSecretExpiresAt(endpoint: WebhookEndpoint, now: Date): string | null {
  const expiries = retiringSecrets(endpoint, now).map((previous) => previous.expires_at);
  return expiries.length === 0 ? null : expiries.reduce((a, b) => (Date.parse(a) > Date.parse(b) ? a : b));
}

export function evolveEndpoint(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated': {
      const { endpoint_id, ...rest } = event.data;
      return { id: endpoint_id, ...rest, previous_secrets: [], status: 'enabled', disabled_reason: null };
    }
    case 'WebhookEndpointDisabled':
      return state && { ...state, status: 'disabled', disabled_reason: event.data.reason };
    case 'WebhookEndpointEnabled':
      return state && { ...state, status: 'enabled', disabled_reason: null };
    case 'WebhookEndpointUpdated': {
      const { endpoint_id: _id, updated_at: _at, ...changed } = event.data;
      return state && { ...state, ...changed };
    }
    case 'WebhookEndpointSecretRotated': {
      if (!state) return state;
      const { secret, previous_secret_expires_at, rotated_at } = event.data;
      const replaced = { secret: state.secret, expires_at: previous_secret_expires_at };
      // A rotation retires every earlier secret at once: only the one it replaces may keep signing, for its overlap.
      // Expiry is judged at the rotation's own time, so a replay folds to the same state.
      return { ...state, secret, previous_secrets: replaced.expires_at > rotated_at ? [replaced] : [] };
    }
    case 'WebhookEndpointDeleted':
      return undefined;
  }
}

function requireEndpoint(state: WebhookEndpointState, endpointId: string): WebhookEndpoint {
  if (state === undefined) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  return state;
}

export function decideDeleteEndpoint(state: WebhookEndpointState, endpointId: string, now: Date): WebhookEndpointEvent[] {
  const endpoint = requireEndpoint(state, endpointId);
  return [{ type: 'WebhookEndpointDeleted', data: { endpoint_id: endpoint.id, deleted_at: now.toISOString() } }];
}

/** Disabling twice, or a deleted endpoint, decides nothing. */
export function decideDisableEndpoint(state: WebhookEndpointState, reason: string, now: Date): WebhookEndpointEvent[] {
  if (state?.status !== 'enabled') return [];
  return [{ type: 'WebhookEndpointDisabled', data: { endpoint_id: state.id, reason, disabled_at: now.toISOString() } }];
}

export interface EndpointChanges {
  url?: string | undefined;
  enabled_events?: EventType[] | undefined;
  description?: string | null | undefined;
  status?: 'enabled' | 'disabled' | undefined;
}

const DISABLED_BY_REQUEST = 'Disabled by request.';

/** Records what differs from the endpoint as it stands: the same values again decide nothing (a safe retry). */
export function decideUpdateEndpoint(
  state: WebhookEndpointState,
  endpointId: string,
  changes: EndpointChanges,
  now: Date,
): WebhookEndpointEvent[] {
  const endpoint = requireEndpoint(state, endpointId);
  const changed: Partial<Pick<WebhookEndpoint, 'url' | 'enabled_events' | 'description'>> = {};
  if (changes.url !== undefined && changes.url !== endpoint.url) changed.url = changes.url;
  if (changes.description !== undefined && changes.description !== endpoint.description) changed.description = changes.description;
  if (changes.enabled_events !== undefined) {
    // A type listed twice is listened to once, as at creation.
    const events = [...new Set(changes.enabled_events)];
    if (events.join() !== endpoint.enabled_events.join()) changed.enabled_events = events;
  }
  const decided: WebhookEndpointEvent[] = [];
  if (Object.keys(changed).length > 0)
    decided.push({ type: 'WebhookEndpointUpdated', data: { endpoint_id: endpoint.id, ...changed, updated_at: now.toISOString() } });
  if (changes.status === 'enabled' && endpoint.status === 'disabled') {
    decided.push({ type: 'WebhookEndpointEnabled', data: { endpoint_id: endpoint.id, enabled_at: now.toISOString() } });
  }
  if (changes.status === 'disabled') decided.push(...decideDisableEndpoint(endpoint, DISABLED_BY_REQUEST, now));
  return decided;
}

/** The new secret signs at once; the replaced one keeps signing for `overlapSeconds` (0: it stops at once). */
export function decideRotateSecret(
  state: WebhookEndpointState,
  endpointId: string,
  secret: string,
  overlapSeconds: number,
  now: Date,
): WebhookEndpointEvent[] {
  const endpoint = requireEndpoint(state, endpointId);
  const expiresAt = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  return [
    {
      type: 'WebhookEndpointSecretRotated',
      data: { endpoint_id: endpoint.id, secret, previous_secret_expires_at: expiresAt, rotated_at: now.toISOString() },
    },
  ];
}

export function subscribes(endpoint: WebhookEndpoint, type: EventType): boolean {
  return endpoint.status === 'enabled' && endpoint.enabled_events.includes(type);
}
