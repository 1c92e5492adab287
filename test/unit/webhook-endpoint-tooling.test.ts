import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { judgeTestAttempt } from '../../src/domain/webhook-delivery.js';
import {
  decideRotateSecret,
  evolveEndpoint,
  previousSecretExpiresAt,
  signingSecrets,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from '../../src/domain/webhook-endpoint.js';
import { newSecret } from '../../src/domain/webhook-secrets.js';
import { signatureHeader } from '../../src/webhooks/signer.js';
import { endpointCreated } from '../support/endpoint-created.js';

const at = (iso: string) => new Date(iso);
const t0 = at('2026-11-21T10:00:00.000Z');
const first = newSecret();
const created = evolveEndpoint(undefined, endpointCreated(first, t0))!;

/**
 * The endpoint decider's rules read as specifications in webhook-endpoint.test.ts. The one below starts from a
 * state no events fold to (a row projected before rotation existed), so it folds by hand.
 */
const fold = (state: WebhookEndpointState, events: WebhookEndpointEvent[]) => events.reduce(evolveEndpoint, state);

describe('secret rotation', () => {
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
