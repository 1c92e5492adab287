import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { judgeTestAttempt } from '../../src/domain/webhook-delivery.js';
import {
  decideRotateSecret,
  decideUpdateEndpoint,
  evolveEndpoint,
  previousSecretExpiresAt,
  signingSecrets,
  type WebhookEndpointState,
} from '../../src/domain/webhook-endpoint.js';
import { newSecret } from '../../src/domain/webhook-secrets.js';
import { signatureHeader } from '../../src/webhooks/signer.js';

const at = (iso: string) => new Date(iso);
const t0 = at('2026-11-21T10:00:00.000Z');
const first = newSecret();
const created = evolveEndpoint(undefined, {
  type: 'WebhookEndpointCreated',
  data: {
    endpoint_id: 'whe_1',
    url: 'https://x.example/h',
    enabled_events: ['nature.assessment.completed'],
    description: null,
    secret: first,
    created_at: t0.toISOString(),
  },
})!;
const fold = (state: WebhookEndpointState, events: ReturnType<typeof decideUpdateEndpoint>) => events.reduce(evolveEndpoint, state);

describe('secret rotation', () => {
  it('signs with the new secret first and the replaced one until its expiry, then the new one alone', () => {
    const second = newSecret();
    const rotated = fold(created, decideRotateSecret(created, 'whe_1', second, 3600, t0))!;
    expect(rotated.secret).toBe(second);
    expect(signingSecrets(rotated, at('2026-11-21T10:59:59.999Z'))).toEqual([second, first]);
    expect(previousSecretExpiresAt(rotated, t0)).toBe('2026-11-21T11:00:00.000Z');
    expect(signingSecrets(rotated, at('2026-11-21T11:00:00.000Z'))).toEqual([second]);
    expect(previousSecretExpiresAt(rotated, at('2026-11-21T11:00:00.000Z'))).toBeNull();
  });

  it('keeps only the secret a rotation replaces, for its overlap: every earlier one stops at once', () => {
    const [second, third, fourth] = [newSecret(), newSecret(), newSecret()];
    let state = fold(created, decideRotateSecret(created, 'whe_1', second, 3600, t0));
    // The first secret is still in its hour when the second rotation comes: it stops then.
    state = fold(state, decideRotateSecret(state, 'whe_1', third, 60, at('2026-11-21T10:30:00.000Z')));
    expect(signingSecrets(state!, at('2026-11-21T10:30:30.000Z'))).toEqual([third, second]);
    expect(previousSecretExpiresAt(state!, at('2026-11-21T10:30:30.000Z'))).toBe('2026-11-21T10:31:00.000Z');
    // With 0, the secret still in its overlap stops at once too.
    state = fold(state, decideRotateSecret(state, 'whe_1', fourth, 0, at('2026-11-21T10:30:40.000Z')));
    expect(state!.previous_secrets).toEqual([]);
    expect(signingSecrets(state!, at('2026-11-21T10:30:40.000Z'))).toEqual([fourth]);
    expect(previousSecretExpiresAt(state!, at('2026-11-21T10:30:40.000Z'))).toBe(null);
  });

  it('puts one signature per secret in webhook-signature; a receiver holding either one verifies', () => {
    const [older, newer] = [newSecret(), newSecret()];
    const now = new Date();
    const body = JSON.stringify({ id: 'evt_1', type: 'nature.assessment.completed' });
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatureHeader([newer, older], 'evt_1', Math.floor(now.getTime() / 1000), body),
    };
    expect(headers['webhook-signature'].split(' ')).toEqual([
      new Webhook(newer).sign('evt_1', now, body),
      new Webhook(older).sign('evt_1', now, body),
    ]);
    expect(new Webhook(older).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(newer).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('reads an endpoint projected before rotation existed (no previous_secrets) as signing with its secret alone', () => {
    const { previous_secrets: _none, ...old } = created;
    expect(signingSecrets(old, t0)).toEqual([first]);
    expect(previousSecretExpiresAt(old, t0)).toBeNull();
    const second = newSecret();
    expect(signingSecrets(fold(old, decideRotateSecret(old, 'whe_1', second, 10, t0))!, t0)).toEqual([second, first]);
  });

  it('refuses a deleted or unknown endpoint', () => {
    expect(() => decideRotateSecret(undefined, 'whe_x', newSecret(), 10, t0)).toThrowError(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('updating an endpoint', () => {
  it('records only what changes, listing each event type once', () => {
    const events = decideUpdateEndpoint(
      created,
      'whe_1',
      { url: 'https://y.example/h', description: null, enabled_events: ['nature.profile.updated', 'nature.profile.updated'] },
      t0,
    );
    expect(events).toEqual([
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
    expect(fold(created, events)).toMatchObject({
      url: 'https://y.example/h',
      enabled_events: ['nature.profile.updated'],
      description: null,
      secret: first,
    });
    expect(
      decideUpdateEndpoint(created, 'whe_1', { url: created.url, enabled_events: ['nature.assessment.completed'], status: 'enabled' }, t0),
    ).toEqual([]);
  });

  it('enables a disabled endpoint and disables an enabled one, each once', () => {
    const disabled = fold(created, decideUpdateEndpoint(created, 'whe_1', { status: 'disabled' }, t0));
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by request.' });
    expect(decideUpdateEndpoint(disabled, 'whe_1', { status: 'disabled' }, t0)).toEqual([]);
    const enabled = fold(disabled, decideUpdateEndpoint(disabled, 'whe_1', { status: 'enabled', description: 'back' }, t0));
    expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null, description: 'back' });
  });

  it('refuses a deleted or unknown endpoint', () => {
    expect(() => decideUpdateEndpoint(undefined, 'whe_x', { description: 'x' }, t0)).toThrowError(
      expect.objectContaining({ code: 'not_found' }),
    );
  });
});

describe('judging a test attempt', () => {
  it.each([
    [{ status_code: 204, error: null }, 'succeeded'],
    [{ status_code: 410, error: null }, 'failed'],
    [{ status_code: 500, error: null }, 'failed'],
    [{ status_code: null, error: 'ECONNREFUSED' }, 'failed'],
  ] as const)('judges %o as %s, never as a retry or a gone endpoint', (result, outcome) => {
    expect(judgeTestAttempt(result)).toBe(outcome);
  });
});
