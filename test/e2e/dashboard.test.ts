import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, decideApplication } from '../../src/commands/accounts.js';
import { createEndpoint } from '../../src/commands/webhooks.js';
import { FAILURES_PER_USER } from '../../src/dashboard/sign-in.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { client } from '../support/api-client.js';
import { Browser, csrfOf, dashboardUser, PASSWORD, shownSecret } from '../support/dashboard.js';
import { eventually } from '../support/eventually.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const RAW_KEY = /(test|live)_(sk|pk)_[0-9A-Za-z]{40}/;
const newKeyForm = (name: string, environment = 'test') => ({
  name,
  environment,
  type: 'sk',
  scopes: ['nature:read', 'nature:write'],
  origins: '',
});

describe('the developer dashboard', () => {
  let t: TestApp;
  let email: string;
  beforeAll(async () => {
    t = await openTestApp();
    email = await dashboardUser(t);
  });
  afterAll(() => t.close());

  const apiStatus = async (raw: string) =>
    (await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(raw) })).statusCode;

  it('sends a signed-out person to sign in, and back to the page they asked for', async () => {
    const browser = new Browser(t.app);
    const asked = await browser.get('/dashboard/sandbox/events?type=nature.assessment.completed');
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fsandbox%2Fevents%3Ftype%3Dnature.assessment.completed');
    await browser.get(asked.headers.location as string);
    const signedIn = await browser.post('/dashboard/sign-in', {
      email: email.toUpperCase(),
      password: PASSWORD,
      next: '/dashboard/sandbox/events?type=nature.assessment.completed',
    });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/sandbox/events?type=nature.assessment.completed');
    // Never to another site.
    await browser.get('/dashboard/sign-in');
    const elsewhere = await new Browser(t.app).signIn(email);
    expect(elsewhere.headers.location).toBe('/dashboard/keys');
  });

  it('keeps the session in an HttpOnly, SameSite=Strict cookie under /dashboard, Secure except on plain-HTTP loopback', async () => {
    const local = await new Browser(t.app, '127.0.0.1:8080').signIn(email);
    const localCookie = String(local.headers['set-cookie']);
    expect(localCookie).toMatch(/nature_session=[^;]+; Max-Age=43200; Path=\/dashboard; HttpOnly; SameSite=Strict/);
    expect(localCookie).not.toMatch(/Secure/);
    const remote = await new Browser(t.app, 'dashboard.example.com').signIn(email);
    expect(String(remote.headers['set-cookie'])).toMatch(/nature_session=[^;]+;.*HttpOnly; Secure; SameSite=Strict/);
  });

  it('gives a new session id at every sign-in: a session id planted before signing in signs nobody in', async () => {
    const browser = new Browser(t.app);
    browser.cookies.set('nature_session', 'planted-by-someone-else');
    await browser.signIn(email);
    const issued = browser.cookies.get('nature_session');
    expect(issued).not.toBe('planted-by-someone-else');
    const again = new Browser(t.app);
    await again.signIn(email);
    expect(again.cookies.get('nature_session')).not.toBe(issued);
  });

  it('creates a sandbox key shown once, which the API accepts; rotates it (the old one 401s); revokes the new one', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const created = await browser.follow(await browser.post('/dashboard/keys', newKeyForm('Staging server')));
    expect(created.headers['cache-control']).toBe('no-store');
    const raw = shownSecret(created.body, RAW_KEY);
    expect(await apiStatus(raw)).toBe(200);
    const listed = await browser.get('/dashboard/keys');
    expect(listed.body).not.toContain(raw);
    expect(listed.body).toContain(`test_sk_…${raw.slice(-4)}`);
    const keyId = (await t.keys.list()).find((key) => key.last4 === raw.slice(-4))!.id;

    const confirm = await browser.get(`/dashboard/keys/${keyId}/rotate`);
    expect(confirm.body).toContain('stops working at once');
    const rotated = await browser.follow(await browser.post(`/dashboard/keys/${keyId}/rotate`, { expires_in: 'now' }));
    const replacement = shownSecret(rotated.body, RAW_KEY);
    expect(await apiStatus(raw)).toBe(401);
    expect(await apiStatus(replacement)).toBe(200);

    const replacementId = (await t.keys.list()).find((key) => key.rotated_from === keyId)!.id;
    await browser.get(`/dashboard/keys/${replacementId}/revoke`);
    const revoked = await browser.post(`/dashboard/keys/${replacementId}/revoke`, {});
    expect(revoked.headers.location).toBe('/dashboard/keys?done=revoked');
    expect((await browser.get(revoked.headers.location as string)).body).toContain('is revoked');
    expect(await apiStatus(replacement)).toBe(401);

    const activity = await browser.get('/dashboard/activity');
    for (const action of ['key.created', 'key.rotated', 'key.revoked']) expect(activity.body).toContain(action);
    expect(activity.body).toContain(email);
  });

  it('shows what people typed as text: a key named <script> is escaped everywhere', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const created = await browser.follow(await browser.post('/dashboard/keys', newKeyForm('<script>alert(1)</script>')));
    const listed = await browser.get('/dashboard/keys');
    const activity = await browser.get('/dashboard/activity');
    for (const page of [created.body, listed.body, activity.body]) {
      expect(page).not.toContain('<script>alert(1)</script>');
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('refuses a key that breaks the rules of keys, with the reason, and keeps what was typed', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const before = (await t.keys.list()).length;
    const pkWrite = await browser.post('/dashboard/keys', { ...newKeyForm('Browser'), type: 'pk' });
    expect(pkWrite.statusCode).toBe(422);
    expect(pkWrite.body).toContain('cannot have nature:write');
    expect(pkWrite.body).toContain('value="Browser"');
    const badOrigin = await browser.post('/dashboard/keys', {
      ...newKeyForm('Browser'),
      type: 'pk',
      scopes: ['nature:read'],
      origins: 'https://app.example.com/path',
    });
    expect(badOrigin.statusCode).toBe(422);
    expect(badOrigin.body).toContain('is not an origin');
    const noName = await browser.post('/dashboard/keys', newKeyForm('  '));
    expect(noName.statusCode).toBe(422);
    expect((await t.keys.list()).length).toBe(before);
  });

  it('mints production keys only once the application is approved by the operator', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const early = await browser.post('/dashboard/keys', newKeyForm('Production server', 'live'));
    expect(early.statusCode).toBe(422);
    expect(early.body).toContain('Production keys need an approved application');

    await browser.get('/dashboard/production');
    const incomplete = await browser.post('/dashboard/production', {
      organisation: 'Acme',
      intended_use: '',
      expected_monthly_completions: '500',
    });
    expect(incomplete.statusCode).toBe(422);
    expect(await t.accounts.application(ACCOUNT_ID)).toBeUndefined();
    const applied = await browser.post('/dashboard/production', {
      organisation: 'Acme Coaching',
      intended_use: 'Coaching programmes for our clients',
      expected_monthly_completions: '500',
    });
    expect(applied.statusCode).toBe(303);
    expect((await browser.get('/dashboard/production')).body).toContain('pending');
    expect((await t.accounts.application(ACCOUNT_ID))?.status).toBe('pending');
    await browser.get('/dashboard/keys');
    expect((await browser.post('/dashboard/keys', newKeyForm('Production server', 'live'))).statusCode).toBe(422);

    await decideApplication(t.accounts, { status: 'approved', reason: null }, new Date());
    expect((await browser.get('/dashboard/production')).body).toContain('approved');
    await browser.get('/dashboard/keys');
    const live = await browser.post('/dashboard/keys', newKeyForm('Production server', 'live'));
    expect(live.statusCode).toBe(303);
    const raw = shownSecret((await browser.follow(live)).body, RAW_KEY);
    expect(raw.startsWith('live_sk_')).toBe(true);
    expect(await apiStatus(raw)).toBe(200);
  });

  it("refuses a POST without a CSRF token, or with another session's, with 403, changing nothing", async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const before = (await t.keys.list()).length;
    const missing = await browser.post('/dashboard/keys', newKeyForm('No token'), null);
    expect(missing.statusCode).toBe(403);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect(missing.body).toContain('nothing was changed');
    const other = new Browser(t.app);
    await other.signIn(email);
    await other.get('/dashboard/keys');
    const foreign = await browser.post('/dashboard/keys', newKeyForm('Foreign token'), csrfOf(other.lastPage));
    expect(foreign.statusCode).toBe(403);
    const forged = await browser.post('/dashboard/keys', newKeyForm('Forged token'), 'forged');
    expect(forged.statusCode).toBe(403);
    expect((await t.keys.list()).length).toBe(before);
    // A sign-out without a token does not sign out.
    await browser.post('/dashboard/sign-out', {}, null);
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(200);
  });

  it('ends the session at sign-out: the same cookie, replayed, gets the sign-in page', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    const stolen = browser.cookies.get('nature_session')!;
    await browser.get('/dashboard/keys');
    const out = await browser.post('/dashboard/sign-out', {});
    expect(out.headers.location).toBe('/dashboard/sign-in?signed_out=1');
    const thief = new Browser(t.app);
    thief.cookies.set('nature_session', stolen);
    const replay = await thief.get('/dashboard/keys');
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toMatch(/^\/dashboard\/sign-in/);
    const write = await thief.post('/dashboard/keys', newKeyForm('After sign-out'), 'any');
    expect(write.statusCode).toBe(303);
  });

  it('ends a session after 30 minutes idle', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(200);
    t.advance(31 * 60 * 1000);
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(303);
  });

  it('never lets a session cookie call the API: API routes take API keys only', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    const cookie = `nature_session=${browser.cookies.get('nature_session')}`;
    const response = await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: { cookie } });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('unauthenticated');
  });
});

describe('sign-in limits and set-up links', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  it('refuses sign-in after repeated wrong passwords (429), even with the right one, until the window has passed', async () => {
    const email = await dashboardUser(t);
    const browser = new Browser(t.app);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 20; attempt++) statuses.push((await browser.signIn(email, `wrong password ${attempt}`)).statusCode);
    expect(statuses.slice(0, FAILURES_PER_USER)).toEqual(Array(FAILURES_PER_USER).fill(401));
    expect(statuses.slice(FAILURES_PER_USER)).toEqual(Array(20 - FAILURES_PER_USER).fill(429));
    const right = await browser.signIn(email);
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toBe('900');
    expect(String(right.headers['set-cookie'] ?? '')).not.toMatch(/nature_session/);
    t.advance(16 * 60 * 1000);
    expect((await browser.signIn(email)).statusCode).toBe(303);
  });

  it('answers an unknown address as a wrong password', async () => {
    const wrong = await new Browser(t.app).signIn('nobody@example.com');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('do not match an account here');
  });

  it('sets a password through a one-time set-up link, then signs in', async () => {
    const { setupToken } = await createUser(
      { accounts: t.accounts, dataKeys: t.envs.test.dataKeys },
      'new-owner@example.com',
      undefined,
      new Date(),
    );
    const browser = new Browser(t.app);
    const form = await browser.get(`/dashboard/setup?token=${setupToken}`);
    expect(form.statusCode).toBe(200);
    const short = await browser.post('/dashboard/setup', { token: setupToken!, password: 'short', confirm: 'short' });
    expect(short.statusCode).toBe(422);
    expect(short.body).toContain('at least 12 characters');
    const set = await browser.post('/dashboard/setup', {
      token: setupToken!,
      password: 'a long enough passphrase',
      confirm: 'a long enough passphrase',
    });
    expect(set.statusCode).toBe(303);
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(200);
    expect((await new Browser(t.app).get(`/dashboard/setup?token=${setupToken}`)).statusCode).toBe(404);
    expect((await new Browser(t.app).signIn('new-owner@example.com', 'a long enough passphrase')).statusCode).toBe(303);
  });
});

describe('the dashboard under load and behind a proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp({ NATURE_PUBLIC_URL: 'https://api.example.com' });
  });
  afterAll(() => t.close());

  it('counts sign-in attempts sent all at once: no more than the limit are checked', async () => {
    const email = await dashboardUser(t);
    const browser = new Browser(t.app);
    await browser.get('/dashboard/sign-in');
    const csrf = csrfOf(browser.lastPage);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) => browser.post('/dashboard/sign-in', { email, password: `guess ${attempt}` }, csrf)),
    ).then((responses) => responses.map((response) => response.statusCode));
    expect(statuses.filter((status) => status === 401)).toHaveLength(FAILURES_PER_USER);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - FAILURES_PER_USER);
  });

  it('keeps no client address in plain text', async () => {
    const db = new Database(join(t.dataDir, 'keys.db'), { readonly: true });
    const keys = db.prepare<[], { key: string }>('SELECT key FROM sign_in_failures').all();
    db.close();
    expect(keys.length).toBeGreaterThan(0);
    for (const { key } of keys) expect(key).toMatch(/^(address|user):[0-9a-f]{64}$/);
  });

  it('sets Secure cookies when the public URL is https, even for a request that looks local (a proxy on loopback)', async () => {
    const email = await dashboardUser(t);
    const signedIn = await new Browser(t.app, '127.0.0.1:8080').signIn(email);
    expect(String(signedIn.headers['set-cookie'])).toMatch(/nature_session=[^;]+;.*HttpOnly; Secure; SameSite=Strict/);
  });

  it('answers a second rotation of the same key from another tab with a message, not an error page', async () => {
    const email = await dashboardUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const raw = shownSecret((await browser.follow(await browser.post('/dashboard/keys', newKeyForm('Twice')))).body, RAW_KEY);
    const keyId = (await t.keys.list()).find((key) => key.last4 === raw.slice(-4))!.id;
    // Two tabs: two confirmation pages, each form with its own one-time token.
    const tabs = [(await browser.get(`/dashboard/keys/${keyId}/rotate`)).body, (await browser.get(`/dashboard/keys/${keyId}/rotate`)).body];
    const [first, second] = await Promise.all(
      tabs.map((tab) => browser.post(`/dashboard/keys/${keyId}/rotate`, { expires_in: 'now' }, csrfOf(tab), tab)),
    );
    expect([first!.statusCode, second!.statusCode].sort()).toEqual([303, 409]);
    expect([first!.body, second!.body].join()).toMatch(/no longer active|already rotated/);
  });

  it('ignores an Idempotency-Key header on a dashboard form (API keys only)', async () => {
    const email = await dashboardUser(t);
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/sandbox/webhooks');
    const response = await t.app.inject({
      method: 'POST',
      url: '/dashboard/sandbox/webhooks',
      headers: {
        host: 'localhost',
        cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': 'form-1',
      },
      payload: new URLSearchParams({ url: `http://127.0.0.1:9/${'a'.repeat(2100)}`, _csrf: csrfOf(browser.lastPage) }).toString(),
    });
    expect(response.statusCode).toBe(422);
    expect(response.body).toContain('at most 2,048 characters');
  });
});

describe("the dashboard answers what the API refuses in the API's terms", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  it("refuses to redeliver an erased subject's event with 410 and the API's words, changing nothing", async () => {
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const { subjectId } = await api.completeAssessment();
    const event = await eventually(async () => (await api.call('GET', '/v1/nature/events')).body.data[0]);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    const browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
    await browser.get('/dashboard/sandbox/events');
    const refused = await browser.post(`/dashboard/sandbox/events/${event.id}/redeliver`, {});
    expect(refused.statusCode).toBe(410);
    expect(refused.body).toContain(`The subject ${subjectId} was erased`);
  });
});

describe('a key pasted into a dashboard address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  it('is redacted, as the API redacts keys in addresses, from the sign-in redirect and the sign-in form', async () => {
    const raw = (await t.mint('test', 'sk')).raw;
    const browser = new Browser(t.app);
    const asked = await browser.get(`/dashboard/sandbox/events?type=${raw}`);
    expect(asked.statusCode).toBe(303);
    expect(String(asked.headers.location)).not.toContain(raw);
    expect(decodeURIComponent(String(asked.headers.location))).toContain('test_sk_[redacted]');
    for (const path of [String(asked.headers.location), `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/keys?k=${raw}`)}`]) {
      const signIn = await browser.get(path);
      expect(signIn.statusCode).toBe(200);
      expect(signIn.body).not.toContain(raw);
    }
  });
});

describe('the webhook list of an environment with many endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  it('pages through every endpoint, past the first hundred', async () => {
    const made = new Set<string>();
    for (let index = 0; index < 101; index++) {
      const { endpoint } = await createEndpoint(
        t.envs.test,
        { url: `http://127.0.0.1:9/hook-${index}`, enabled_events: ['nature.assessment.completed'], description: null },
        { causation: 'test' },
        new Date(),
      );
      made.add(endpoint.id);
    }
    const browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
    const listed = new Set<string>();
    let path: string | undefined = '/dashboard/sandbox/webhooks';
    while (path !== undefined) {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      for (const [, id] of page.body.matchAll(/href="\/dashboard\/sandbox\/webhooks\/(whe_[0-9A-Z]{26})"/g)) listed.add(id!);
      path = /<a href="([^"]+)">More endpoints<\/a>/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
    }
    expect(listed.size).toBe(101);
    expect(listed).toEqual(made);
  });
});
