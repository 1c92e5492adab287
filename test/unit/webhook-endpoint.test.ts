import { describe, expect, it } from 'vitest';
import { endpointAggregate } from '../../src/commands/aggregates.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  decideDeleteEndpoint,
  decideDisableEndpoint,
  decideRotateSecret,
  decideUpdateEndpoint,
  type EndpointChanges,
  previousSecretExpiresAt,
  signingSecrets,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from '../../src/domain/webhook-endpoint.js';
import { newSecret } from '../../src/domain/webhook-secrets.js';
import { deciderSpecification, refusal } from '../support/decider-spec.js';
import { endpointCreated } from '../support/endpoint-created.js';

/** The endpoint's commands. Its creation decides nothing (commands/webhooks.ts writes WebhookEndpointCreated as given). */
type EndpointCommand =
  | { type: 'DeleteEndpoint'; endpoint_id: string; now: Date }
  | { type: 'DisableEndpoint'; reason: string; now: Date }
  | { type: 'UpdateEndpoint'; endpoint_id: string; changes: EndpointChanges; now: Date }
  | { type: 'RotateSecret'; endpoint_id: string; secret: string; overlap_seconds: number; now: Date };

const endpoint = deciderSpecification<WebhookEndpointState, WebhookEndpointEvent, EndpointCommand>({
  ...endpointAggregate,
  decide: (command, state) => {
    switch (command.type) {
      case 'DeleteEndpoint':
        return decideDeleteEndpoint(state, command.endpoint_id, command.now);
      case 'DisableEndpoint':
        return decideDisableEndpoint(state, command.reason, command.now);
      case 'UpdateEndpoint':
        return decideUpdateEndpoint(state, command.endpoint_id, command.changes, command.now);
      case 'RotateSecret':
        return decideRotateSecret(state, command.endpoint_id, command.secret, command.overlap_seconds, command.now);
    }
  },
});

const at = (iso: string) => new Date(iso);
const t0 = at('2026-11-21T10:00:00.000Z');
const first = newSecret();
const created: WebhookEndpointEvent = endpointCreated(first, t0);
const deleted: WebhookEndpointEvent = { type: 'WebhookEndpointDeleted', data: { endpoint_id: 'whe_1', deleted_at: t0.toISOString() } };

const rotating = (secret: string, overlapSeconds: number, now: Date, endpointId = 'whe_1'): EndpointCommand => ({
  type: 'RotateSecret',
  endpoint_id: endpointId,
  secret,
  overlap_seconds: overlapSeconds,
  now,
});
const rotated = (secret: string, previousExpiresAt: string, now: Date): WebhookEndpointEvent => ({
  type: 'WebhookEndpointSecretRotated',
  data: { endpoint_id: 'whe_1', secret, previous_secret_expires_at: previousExpiresAt, rotated_at: now.toISOString() },
});
const updating = (changes: EndpointChanges, endpointId = 'whe_1'): EndpointCommand => ({
  type: 'UpdateEndpoint',
  endpoint_id: endpointId,
  changes,
  now: t0,
});
const disabledBy = (reason: string): WebhookEndpointEvent => ({
  type: 'WebhookEndpointDisabled',
  data: { endpoint_id: 'whe_1', reason, disabled_at: t0.toISOString() },
});

describe('secret rotation', () => {
  it('signs with the new secret first and the replaced one until its expiry, then the new one alone', () => {
    const second = newSecret();
    const state = endpoint
      .given([created])
      .when(rotating(second, 3600, t0))
      .then([rotated(second, '2026-11-21T11:00:00.000Z', t0)])!;
    expect(state.secret).toBe(second);
    expect(signingSecrets(state, at('2026-11-21T10:59:59.999Z'))).toEqual([second, first]);
    expect(previousSecretExpiresAt(state, t0)).toBe('2026-11-21T11:00:00.000Z');
    expect(signingSecrets(state, at('2026-11-21T11:00:00.000Z'))).toEqual([second]);
    expect(previousSecretExpiresAt(state, at('2026-11-21T11:00:00.000Z'))).toBeNull();
  });

  it('keeps only the secret a rotation replaces, for its overlap: every earlier one stops at once', () => {
    const [second, third, fourth] = [newSecret(), newSecret(), newSecret()];
    const firstRotation = rotated(second, '2026-11-21T11:00:00.000Z', t0);
    // The first secret is still in its hour when the second rotation comes: it stops then.
    const secondRotation = rotated(third, '2026-11-21T10:31:00.000Z', at('2026-11-21T10:30:00.000Z'));
    let state = endpoint
      .given([created, firstRotation])
      .when(rotating(third, 60, at('2026-11-21T10:30:00.000Z')))
      .then([secondRotation])!;
    expect(signingSecrets(state, at('2026-11-21T10:30:30.000Z'))).toEqual([third, second]);
    expect(previousSecretExpiresAt(state, at('2026-11-21T10:30:30.000Z'))).toBe('2026-11-21T10:31:00.000Z');
    // With 0, the secret still in its overlap stops at once too.
    const stopsAtOnce = at('2026-11-21T10:30:40.000Z');
    state = endpoint
      .given([created, firstRotation, secondRotation])
      .when(rotating(fourth, 0, stopsAtOnce))
      .then([rotated(fourth, stopsAtOnce.toISOString(), stopsAtOnce)])!;
    expect(state.previous_secrets).toEqual([]);
    expect(signingSecrets(state, stopsAtOnce)).toEqual([fourth]);
    expect(previousSecretExpiresAt(state, stopsAtOnce)).toBe(null);
  });

  it('refuses a deleted or unknown endpoint', () => {
    endpoint
      .given([])
      .when(rotating(newSecret(), 10, t0, 'whe_x'))
      .thenThrows(DomainError, refusal('not_found'));
    endpoint
      .given([created, deleted])
      .when(rotating(newSecret(), 10, t0))
      .thenThrows(DomainError, refusal('not_found'));
  });
});

describe('updating an endpoint', () => {
  it('records only what changes, listing each event type once', () => {
    const state = endpoint
      .given([created])
      .when(
        updating({ url: 'https://y.example/h', description: null, enabled_events: ['nature.profile.updated', 'nature.profile.updated'] }),
      )
      .then([
        {
          type: 'WebhookEndpointUpdated',
          data: {
            endpoint_id: 'whe_1',
            url: 'https://y.example/h',
            enabled_events: ['nature.profile.updated'],
            updated_at: t0.toISOString(),
          },
        },
      ]);
    expect(state).toMatchObject({
      url: 'https://y.example/h',
      enabled_events: ['nature.profile.updated'],
      description: null,
      secret: first,
    });
    endpoint
      .given([created])
      .when(updating({ url: 'https://x.example/h', enabled_events: ['nature.assessment.completed'], status: 'enabled' }))
      .thenNothingHappened();
  });

  it('enables a disabled endpoint and disables an enabled one, each once', () => {
    const byRequest = disabledBy('Disabled by request.');
    const disabled = endpoint
      .given([created])
      .when(updating({ status: 'disabled' }))
      .then([byRequest]);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by request.' });
    endpoint
      .given([created, byRequest])
      .when(updating({ status: 'disabled' }))
      .thenNothingHappened();
    const enabled = endpoint
      .given([created, byRequest])
      .when(updating({ status: 'enabled', description: 'back' }))
      .then([
        { type: 'WebhookEndpointUpdated', data: { endpoint_id: 'whe_1', description: 'back', updated_at: t0.toISOString() } },
        { type: 'WebhookEndpointEnabled', data: { endpoint_id: 'whe_1', enabled_at: t0.toISOString() } },
      ]);
    expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null, description: 'back' });
  });

  it('refuses a deleted or unknown endpoint', () => {
    endpoint
      .given([])
      .when(updating({ description: 'x' }, 'whe_x'))
      .thenThrows(DomainError, refusal('not_found'));
    endpoint
      .given([created, deleted])
      .when(updating({ description: 'x' }))
      .thenThrows(DomainError, refusal('not_found'));
  });
});

describe('disabling and deleting an endpoint', () => {
  it('disables once, and never a deleted endpoint', () => {
    const state = endpoint
      .given([created])
      .when({ type: 'DisableEndpoint', reason: 'gone', now: t0 })
      .then([disabledBy('gone')]);
    expect(state).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    endpoint
      .given([created, disabledBy('gone')])
      .when({ type: 'DisableEndpoint', reason: 'gone', now: t0 })
      .thenNothingHappened();
    endpoint.given([]).when({ type: 'DisableEndpoint', reason: 'gone', now: t0 }).thenNothingHappened();
    endpoint.given([created, deleted]).when({ type: 'DisableEndpoint', reason: 'gone', now: t0 }).thenNothingHappened();
  });

  it('deletes an endpoint, after which it is gone (§Webhooks: GET one, list, DELETE)', () => {
    const deleting: EndpointCommand = { type: 'DeleteEndpoint', endpoint_id: 'whe_1', now: t0 };
    expect(endpoint.given([created]).when(deleting).then([deleted])).toBeUndefined();
    endpoint.given([created, deleted]).when(deleting).thenThrows(DomainError, refusal('not_found'));
  });
});
