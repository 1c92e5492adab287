import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { judgeAttempt } from '../../src/domain/webhook-delivery.js';
import { decideDeleteEndpoint, decideDisableEndpoint, evolveEndpoint } from '../../src/domain/webhook-endpoint.js';
import { newSecret, sign } from '../../src/webhooks/signer.js';

describe('signer', () => {
  it('signs exactly as the Standard Webhooks reference library does', () => {
    const secret = newSecret();
    const at = new Date('2026-11-21T10:00:00Z');
    const body = JSON.stringify({ id: 'evt_1', data: { n: 'é' } });
    expect(sign(secret, 'evt_1', at.getTime() / 1000, body)).toBe(new Webhook(secret).sign('evt_1', at, body));
  });

  it('makes a new 32-byte secret every time', () => {
    const secret = newSecret();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });
});

describe('judging an attempt', () => {
  const schedule = [5_000, 300_000];
  it.each([
    [{ status_code: 200, error: null }, 1, 'succeeded', null],
    [{ status_code: 204, error: null }, 3, 'succeeded', null],
    [{ status_code: 410, error: null }, 1, 'endpoint_gone', null],
    [{ status_code: 301, error: null }, 1, 'retrying', 5_000],
    [{ status_code: 500, error: null }, 2, 'retrying', 300_000],
    [{ status_code: null, error: 'ECONNREFUSED' }, 1, 'retrying', 5_000],
    [{ status_code: 500, error: null }, 3, 'failed', null],
  ] as const)('judges %o on attempt %i as %s', (result, attempt, outcome, retryInMs) => {
    expect(judgeAttempt(result, attempt, schedule)).toEqual({ outcome, retryInMs });
  });
});

describe('webhook endpoint decider', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  const created = evolveEndpoint(undefined, {
    type: 'WebhookEndpointCreated',
    data: { endpoint_id: 'whe_1', url: 'https://x.example/h', enabled_events: ['nature.assessment.completed'], description: null, secret: 's', created_at: now.toISOString() },
  });

  it('disables once, and never a deleted endpoint', () => {
    const disabled = decideDisableEndpoint(created, 'gone', now);
    expect(disabled).toHaveLength(1);
    const state = disabled.reduce(evolveEndpoint, created);
    expect(state).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    expect(decideDisableEndpoint(state, 'gone', now)).toEqual([]);
    expect(decideDisableEndpoint(undefined, 'gone', now)).toEqual([]);
  });

  it('deletes an endpoint, after which it is gone', () => {
    const deleted = decideDeleteEndpoint(created, 'whe_1', now).reduce(evolveEndpoint, created);
    expect(deleted).toBeUndefined();
    expect(() => decideDeleteEndpoint(deleted, 'whe_1', now)).toThrowError(expect.objectContaining({ code: 'not_found' }));
  });
});
