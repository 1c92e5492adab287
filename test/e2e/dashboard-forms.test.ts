import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../../src/commands/webhooks.js';
import { signingSecrets, type WebhookEndpoint } from '../../src/domain/webhook-endpoint.js';
import { Browser, csrfOf, dashboardUser, shownSecret } from '../support/dashboard.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const RAW_KEY = /(test|live)_(sk|pk)_[0-9A-Za-z]{40}/;
const SIGNING_SECRET = /whsec_[0-9A-Za-z+/]{16,}={0,2}/;
const newKeyForm = (name: string) => ({ name, environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'], origins: '' });

describe('dashboard forms sent twice (a double click, a reload, a second tab)', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await openTestApp();
    browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
  });
  afterAll(() => t.close());

  const apiStatus = async (raw: string) =>
    (await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(raw) })).statusCode;

  it('makes one key of a create form sent twice, and shows its raw key once, on the page the redirect leads to', async () => {
    const form = (await browser.get('/dashboard/keys')).body;
    const before = (await t.keys.list()).length;
    const first = await browser.post('/dashboard/keys', newKeyForm('Sent twice'), csrfOf(form), form);
    const second = await browser.post('/dashboard/keys', newKeyForm('Sent twice'), csrfOf(form), form);
    expect((await t.keys.list()).length).toBe(before + 1);
    expect([first.statusCode, second.statusCode]).toEqual([303, 303]);
    expect(second.headers.location).toBe(first.headers.location);
    const location = String(first.headers.location);
    expect(location).not.toMatch(RAW_KEY);
    const shown = await browser.get(location);
    expect(shown.headers['cache-control']).toBe('no-store');
    const raw = shownSecret(shown.body, RAW_KEY);
    expect(await apiStatus(raw)).toBe(200);
    // A reload of that page, or the second submission's redirect, does not show it again.
    expect((await browser.get(location)).body).not.toMatch(RAW_KEY);
    expect((await browser.get(location)).body).toContain('Sent twice');
  });

  it('rotates a key once when its confirmation is sent twice at the same moment: both land on the page with the new key', async () => {
    await browser.get('/dashboard/keys');
    await browser.post('/dashboard/keys', newKeyForm('Rotated twice'));
    const keyId = (await t.keys.list()).find((key) => key.name === 'Rotated twice')!.id;
    const form = (await browser.get(`/dashboard/keys/${keyId}/rotate`)).body;
    const [first, second] = await Promise.all(
      [1, 2].map(() => browser.post(`/dashboard/keys/${keyId}/rotate`, { expires_in: 'now' }, csrfOf(form), form)),
    );
    expect((await t.keys.list()).filter((key) => key.rotated_from === keyId)).toHaveLength(1);
    expect([first!.statusCode, second!.statusCode]).toEqual([303, 303]);
    expect(second!.headers.location).toBe(first!.headers.location);
    const raw = shownSecret((await browser.get(String(first!.headers.location))).body, RAW_KEY);
    expect(await apiStatus(raw)).toBe(200);
  });

  it('rotates a signing secret once when the form is sent twice: the original secret still signs for the overlap chosen', async () => {
    const { endpoint } = await createEndpoint(
      t.envs.test,
      { url: 'http://127.0.0.1:9/hook', enabled_events: ['nature.assessment.completed'], description: null },
      { causation: 'test' },
      new Date(),
    );
    const original = endpoint.secret;
    const path = `/dashboard/sandbox/webhooks/${endpoint.id}`;
    const form = (await browser.get(path)).body;
    const first = await browser.post(`${path}/rotate`, { overlap: '3600' }, csrfOf(form), form);
    const second = await browser.post(`${path}/rotate`, { overlap: '3600' }, csrfOf(form), form);
    const stored = (await t.envs.test.readModels.get('webhook_endpoints', endpoint.id)) as WebhookEndpoint;
    expect(stored.secret).not.toBe(original);
    expect(signingSecrets(stored, new Date())).toEqual([stored.secret, original]);
    expect(Date.parse(stored.previous_secrets![0]!.expires_at) - Date.now()).toBeGreaterThan(3500 * 1000);
    expect([first.statusCode, second.statusCode]).toEqual([303, 303]);
    expect(second.headers.location).toBe(first.headers.location);
    const location = String(first.headers.location);
    expect(location).not.toMatch(SIGNING_SECRET);
    expect(shownSecret((await browser.get(location)).body, SIGNING_SECRET)).toBe(stored.secret);
    expect((await browser.get(location)).body).not.toMatch(SIGNING_SECRET);
  });

  it('refuses a value no form offers with 422 and a page naming the field, changing nothing', async () => {
    const { endpoint } = await createEndpoint(
      t.envs.test,
      { url: 'http://127.0.0.1:9/forged', enabled_events: ['nature.assessment.completed'], description: null },
      { causation: 'test' },
      new Date(),
    );
    const path = `/dashboard/sandbox/webhooks/${endpoint.id}`;
    const forged: [string, Record<string, string | string[]>, string][] = [
      ['/dashboard/keys', { ...newKeyForm('Forged'), environment: 'staging' }, 'environment'],
      ['/dashboard/keys', { ...newKeyForm('Forged'), type: 'rk' }, 'type'],
      ['/dashboard/keys', { ...newKeyForm('Forged'), scopes: ['nature:read', 'nature:admin'] }, 'scopes'],
      ['/dashboard/keys', { ...newKeyForm('Forged'), owner: 'someone' }, 'owner'],
      ['/dashboard/sandbox/webhooks', { url: 'http://127.0.0.1:9/new', enabled_events: 'nature.everything' }, 'enabled_events'],
      [`${path}/rotate`, { overlap: '12345' }, 'overlap'],
      [`${path}/status`, { status: 'paused' }, 'status'],
      [path, { url: 'http://127.0.0.1:9/changed', enabled_events: ['nature.assessment.completed', 'nature.bogus'] }, 'enabled_events'],
    ];
    const keys = await t.keys.list();
    const endpoints = await t.envs.test.readModels.list('webhook_endpoints', { limit: 1000 });
    for (const [action, form, named] of forged) {
      const page = action.startsWith('/dashboard/keys')
        ? '/dashboard/keys'
        : action.startsWith(path)
          ? path
          : '/dashboard/sandbox/webhooks';
      await browser.get(page);
      const refused = await browser.post(action, form);
      expect(`${action} ${refused.statusCode}`).toBe(`${action} 422`);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain(named);
      expect(refused.body).toContain('nothing was changed');
    }
    expect(await t.keys.list()).toEqual(keys);
    expect(await t.envs.test.readModels.list('webhook_endpoints', { limit: 1000 })).toEqual(endpoints);
  });
});
