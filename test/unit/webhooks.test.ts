import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { judgeAttempt } from '../../src/domain/webhook-delivery.js';
import { decideDeleteEndpoint, decideDisableEndpoint, evolveEndpoint } from '../../src/domain/webhook-endpoint.js';
import { endpointUrlProblem, guardedLookup, isAllowedAddress } from '../../src/webhooks/address-guard.js';
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

describe('address guard', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('lets the public address %s through in both environments', (address) => {
    expect(isAllowedAddress(address, false)).toBe(true);
    expect(isAllowedAddress(address, true)).toBe(true);
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1'])('lets loopback %s through in the sandbox only', (address) => {
    expect(isAllowedAddress(address, true)).toBe(true);
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  it.each(['10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip'])(
    'refuses %s in both environments',
    (address) => {
      expect(isAllowedAddress(address, true)).toBe(false);
      expect(isAllowedAddress(address, false)).toBe(false);
    },
  );

  it('allows sandbox endpoints on loopback http but not on private networks, and production ones on public https only', () => {
    expect(endpointUrlProblem('http://127.0.0.1:3000/x', false)).toBeUndefined();
    expect(endpointUrlProblem('http://localhost:3000/x', false)).toBeUndefined();
    expect(endpointUrlProblem('http://10.0.0.1:9200/x', false)).toMatch(/public or loopback/);
    expect(endpointUrlProblem('http://169.254.169.254/latest', false)).toMatch(/public or loopback/);
    expect(endpointUrlProblem('http://127.0.0.1:3000/x', true)).toMatch(/https/);
    expect(endpointUrlProblem('https://hooks.example.com/x', true)).toBeUndefined();
  });

  const resolve = (allowLoopback: boolean, host: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((done) =>
      guardedLookup(allowLoopback)(host, {}, (error, address) => done({ error, address })),
    );

  it('refuses at delivery time a production name that resolves to loopback', async () => {
    const result = await resolve(false, 'localhost');
    expect(result.error?.code).toBe('EADDRNOTALLOWED');
  });

  it('lets a sandbox name resolve to loopback', async () => {
    const result = await resolve(true, 'localhost');
    expect(result.error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(result.address);
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
