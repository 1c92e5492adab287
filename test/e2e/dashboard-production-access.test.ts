import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideApplication, submitApplication } from '../../src/commands/accounts.js';
import { rotateApiKey } from '../../src/commands/api-keys.js';
import { createEndpoint } from '../../src/commands/webhooks.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { client } from '../support/api-client.js';
import { Browser, dashboardUser } from '../support/dashboard.js';
import { eventually } from '../support/eventually.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

/**
 * The dashboard's routes that are not about one environment's resources: signing in and out, the account's
 * keys list and key form (which refuse production keys themselves), the application, the activity log, members,
 * invitations and assets.
 * Every other route is a production route once its environment is production (or its key is a live one).
 */
const ACCOUNT_WIDE = new Set([
  'GET /dashboard',
  'GET /dashboard/assets/dashboard.css',
  'GET /dashboard/assets/dashboard.js',
  'GET /dashboard/sign-in',
  'POST /dashboard/sign-in',
  'POST /dashboard/sign-out',
  'GET /dashboard/setup',
  'POST /dashboard/setup',
  'GET /dashboard/keys',
  'POST /dashboard/keys',
  'GET /dashboard/production',
  'POST /dashboard/production',
  'GET /dashboard/activity',
  'GET /dashboard/invitation',
  'POST /dashboard/invitation',
  'GET /dashboard/members',
  'POST /dashboard/members',
  'POST /dashboard/members/invitations/:id/revoke',
  'GET /dashboard/members/:id',
  'POST /dashboard/members/:id/role',
  'POST /dashboard/members/:id/remove',
  'POST /dashboard/members/:id/transfer',
  'GET /dashboard/sign-in/two-factor',
  'POST /dashboard/sign-in/two-factor',
  'GET /dashboard/security',
  'POST /dashboard/security/two-factor/start',
  'POST /dashboard/security/two-factor/confirm',
  'POST /dashboard/security/recovery-codes',
  'POST /dashboard/security/two-factor/disable',
  'POST /dashboard/security/requirement',
]);

/** What a form of each production route sends when a person uses it. */
const FORMS: Record<string, Record<string, string>> = {
  '/dashboard/:segment/webhooks': { url: 'https://hooks.example.com/new', enabled_events: 'nature.assessment.completed' },
  '/dashboard/:segment/webhooks/:id': { url: 'https://hooks.example.com/changed', enabled_events: 'nature.assessment.completed' },
  '/dashboard/:segment/webhooks/:id/status': { status: 'disabled' },
  '/dashboard/:segment/webhooks/:id/rotate': { overlap: '0' },
};

describe('production resources in the dashboard, before the application is approved', () => {
  let t: TestApp;
  let browser: Browser;
  let liveKey: { id: string; raw: string };
  let endpointId: string;
  let eventId: string;

  beforeAll(async () => {
    t = await openTestApp();
    // The operator mints a production key and the account has production traffic, while the application is pending.
    liveKey = await t.mint('live', 'sk');
    const { endpoint } = await createEndpoint(
      t.envs.live,
      { url: 'https://hooks.example.com/live', enabled_events: ['nature.assessment.completed'], description: null },
      { causation: 'test' },
      new Date(),
    );
    endpointId = endpoint.id;
    const api = client(t, liveKey.raw);
    await api.completeAssessment();
    eventId = await eventually(async () => (await api.call('GET', '/v1/nature/events')).body.data[0].id as string);
    const email = await dashboardUser(t);
    await submitApplication(
      t.accounts,
      { organisation: 'Acme', intended_use: 'Coaching', expected_monthly_completions: 10 },
      (await t.accounts.users())[0]!.id,
      new Date(),
    );
    browser = new Browser(t.app);
    await browser.signIn(email);
  });
  afterAll(() => t.close());

  /** Everything a refused request could have changed or shown. */
  const snapshot = async () => ({
    keys: await t.keys.list(),
    endpoints: (await t.envs.live.readModels.list('webhook_endpoints', { limit: 1000 })).data,
    activity: await t.accounts.activity(ACCOUNT_ID, 1000),
    liveKeyWorks: (await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(liveKey.raw) })).statusCode,
  });

  /** The route's path with production's resources in its parameters. */
  const productionPath = (url: string) =>
    url.replace(/:(\w+)/g, (_, name: string) => {
      if (name === 'segment') return 'production';
      if (name === 'id' && url.startsWith('/dashboard/keys/')) return liveKey.id;
      if (name === 'id' && url.includes('/webhooks/')) return endpointId;
      if (name === 'id' && url.includes('/events/')) return eventId;
      // Refused before it is looked up: any request's id stands for one of production's.
      if (name === 'id' && url.includes('/requests/')) return 'req_01M00000000000000000000000';
      throw new Error(`the walk does not know what production resource :${name} names in ${url}: teach it`);
    });

  it('refuses every production route of the dashboard, GET and POST, with 403 and a link to the application, changing nothing', async () => {
    const walked = t.dashboardRoutes.filter(
      (route) => ['GET', 'POST'].includes(route.method) && !ACCOUNT_WIDE.has(`${route.method} ${route.url}`),
    );
    // The walk covers the routes the issue named, and any added since.
    expect(walked.map((route) => `${route.method} ${route.url}`)).toEqual(
      expect.arrayContaining([
        'POST /dashboard/keys/:id/rotate',
        'POST /dashboard/keys/:id/revoke',
        'POST /dashboard/:segment/webhooks',
        'POST /dashboard/:segment/webhooks/:id/rotate',
        'POST /dashboard/:segment/events/:id/redeliver',
        'GET /dashboard/:segment/events',
        'GET /dashboard/:segment/usage',
      ]),
    );
    const before = await snapshot();
    expect(before.liveKeyWorks).toBe(200);
    const answers: string[] = [];
    for (const route of walked) {
      const path = productionPath(route.url);
      await browser.get('/dashboard/keys');
      const response = route.method === 'GET' ? await browser.get(path) : await browser.post(path, FORMS[route.url] ?? {});
      const refused =
        response.statusCode === 403 &&
        response.body.includes('Production access needs an approved application') &&
        response.body.includes('href="/dashboard/production"');
      answers.push(`${route.method} ${path}: ${refused ? 'refused' : response.statusCode}`);
    }
    expect(answers.filter((answer) => !answer.endsWith('refused'))).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('mints no production key and lists none of them for a pending application', async () => {
    const list = await browser.get('/dashboard/keys');
    expect(list.body).not.toContain(`…${liveKey.raw.slice(-4)}`);
    expect(list.body).not.toContain(`/dashboard/keys/${liveKey.id}/rotate`);
    const before = (await t.keys.list()).length;
    const minted = await browser.post('/dashboard/keys', {
      name: 'Production server',
      environment: 'live',
      type: 'sk',
      scopes: ['nature:read'],
      origins: '',
    });
    expect(minted.statusCode).toBe(422);
    expect((await t.keys.list()).length).toBe(before);
  });

  it("leaves the operator's commands their full power: the operator rotates the live key while the application is pending", async () => {
    const { raw } = await rotateApiKey(t, { type: 'operator' }, liveKey.id, new Date());
    expect((await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(raw) })).statusCode).toBe(200);
    const rotatedFrom = liveKey.id;
    liveKey = { id: (await t.keys.list()).find((key) => key.rotated_from === liveKey.id)!.id, raw };
    // The rotation is in the account's activity, but a pending application sees nothing of production there either.
    const activity = await browser.get('/dashboard/activity');
    expect(activity.statusCode).toBe(200);
    expect(activity.body).not.toContain(rotatedFrom);
    expect(activity.body).not.toContain(`…${raw.slice(-4)}`);
  });

  it('opens the production pages once the operator approves the application', async () => {
    await decideApplication(t.accounts, { status: 'approved', reason: null }, new Date());
    for (const path of ['/dashboard/production/webhooks', `/dashboard/production/events/${eventId}`, '/dashboard/production/usage'])
      expect((await browser.get(path)).statusCode, path).toBe(200);
    expect((await browser.get('/dashboard/keys')).body).toContain(`/dashboard/keys/${liveKey.id}/rotate`);
  });
});
