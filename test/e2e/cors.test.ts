import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey } from '../../src/domain/api-keys.js';
import { knownResponses } from '../support/known-answers.js';
import { expectProblem } from '../support/problems.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const APP_ORIGIN = 'https://app.example.com';
const OTHER_ORIGIN = 'https://evil.example.net';

/** The CORS headers of an answer, as a browser reads them. */
const corsHeaders = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-')));

describe('CORS on the routes a pk key may call', () => {
  let t: TestApp;
  let sk: string;
  let anyOrigin: string;
  let appOnly: string;
  let url: string;
  let secret: string;
  beforeAll(async () => {
    t = await openTestApp();
    sk = (await t.mint('test', 'sk')).raw;
    anyOrigin = (await t.mint('test', 'pk', ['nature:read'])).raw;
    const minted = mintKey({ name: 'app', environment: 'test', type: 'pk', scopes: ['nature:read'], origins: [APP_ORIGIN] }, new Date());
    await t.keys.insert(minted.record);
    appOnly = minted.raw;
    const subjectId = (
      await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(sk), payload: validSubject() })
    ).json().id;
    const started = (await t.app.inject({ method: 'POST', url: `/v1/nature/subjects/${subjectId}/assessments`, headers: auth(sk) })).json();
    url = `/v1/nature/subjects/${subjectId}/assessments/${started.id}`;
    secret = started.client_secret;
  });
  afterAll(async () => {
    await t.close();
  });

  const preflight = (path: string, method: string, origin = APP_ORIGIN) =>
    t.app.inject({
      method: 'OPTIONS',
      url: path,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization,content-type,idempotency-key,nature-client-secret',
      },
    });
  const fromBrowser = (method: 'GET' | 'PATCH' | 'DELETE', path: string, key: string, origin: string, payload?: object) =>
    t.app.inject({ method, url: path, headers: { ...auth(key), origin, 'nature-client-secret': secret }, ...(payload && { payload }) });

  it('answers preflights of the browser routes before authentication, with the methods and headers a page needs', async () => {
    for (const [path, method, methods] of [
      ['/v1/nature/items', 'GET', 'GET'],
      ['URL', 'GET', 'GET, PATCH'],
      ['URL', 'PATCH', 'GET, PATCH'],
    ] as const) {
      const answer = await preflight(path === 'URL' ? url : path, method, OTHER_ORIGIN);
      expect(answer.statusCode, `${method} ${path}`).toBe(204);
      expect(corsHeaders(answer.headers)).toEqual({
        'access-control-allow-origin': OTHER_ORIGIN,
        'access-control-allow-methods': methods,
        'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, Nature-Client-Secret',
        'access-control-expose-headers': 'request-id, Retry-After, RateLimit, RateLimit-Policy, idempotent-replayed, Date',
        'access-control-max-age': '600',
      });
      expect(answer.headers.vary).toMatch(/Origin/);
      expect(answer.headers['ratelimit-policy']).toBe('"default";q=200;w=2');
    }
  });

  it('sends no CORS headers from sk-only routes: their preflights answer 404 or 405', async () => {
    const subjectPath = url.split('/assessments/')[0]!;
    for (const [path, method, status] of [
      ['/v1/nature/subjects', 'POST', 405],
      [subjectPath, 'GET', 405],
      [`${subjectPath}/assessments`, 'POST', 405],
      [`${subjectPath}/audit`, 'GET', 405],
      [url, 'DELETE', 405],
      ['/v1/nature/items', 'PATCH', 405],
      ['/v1/nature/nothing', 'GET', 404],
    ] as const) {
      const answer = await preflight(path, method);
      expect(answer.statusCode, `${method} ${path}`).toBe(status);
      expect(corsHeaders(answer.headers), `${method} ${path}`).toEqual({});
    }
    // An OPTIONS that is no preflight (no Origin, or no Access-Control-Request-Method), on a browser route too.
    for (const headers of [{ 'access-control-request-method': 'GET' }, { origin: APP_ORIGIN }, {}]) {
      const answer = await t.app.inject({ method: 'OPTIONS', url: '/v1/nature/items', headers });
      expectProblem(answer, 405, 'method_not_allowed');
      expect(corsHeaders(answer.headers)).toEqual({});
    }
    const actual = await t.app.inject({ url: `${subjectPath}`, headers: { ...auth(sk), origin: APP_ORIGIN } });
    expect(actual.statusCode).toBe(200);
    expect(corsHeaders(actual.headers)).toEqual({});
    expect(corsHeaders((await fromBrowser('DELETE', url, anyOrigin, APP_ORIGIN)).headers)).toEqual({});
  });

  it('lets a pk key without origins work from any origin, and one with origins from those only', async () => {
    for (const [key, origin] of [
      [anyOrigin, OTHER_ORIGIN],
      [appOnly, APP_ORIGIN],
    ] as const) {
      const bank = await fromBrowser('GET', '/v1/nature/items', key, origin);
      expect(bank.statusCode).toBe(200);
      expect(bank.headers['access-control-allow-origin']).toBe(origin);
      expect(bank.headers['access-control-expose-headers']).toMatch(/request-id/);
      // The component estimates the server's clock from Date (answered_at in the server's time).
      expect(bank.headers['access-control-expose-headers']).toMatch(/\bDate\b/);
      const read = await fromBrowser('GET', url, key, origin);
      expect(read.statusCode).toBe(200);
      expect(read.headers['access-control-allow-origin']).toBe(origin);
    }
    // Another origin: refused, so a PATCH changes nothing; the refusal is readable by that page (it carries
    // Access-Control-Allow-Origin), so the page can tell its site owner what to fix instead of retrying blindly.
    for (const [method, path] of [
      ['GET', '/v1/nature/items'],
      ['GET', url],
      ['PATCH', url],
    ] as const) {
      const refused = await fromBrowser(
        method,
        path,
        appOnly,
        OTHER_ORIGIN,
        method === 'PATCH' ? { responses: [knownResponses[0]!] } : undefined,
      );
      expectProblem(refused, 403, 'insufficient_scope');
      expect(refused.json().detail).toBe(
        `This publishable key may not be used from ${OTHER_ORIGIN}; its allowed origins are ${APP_ORIGIN}.`,
      );
      expect(refused.json().required_scope).toBeUndefined();
      expect(refused.headers['access-control-allow-origin']).toBe(OTHER_ORIGIN);
      expect(refused.headers['access-control-expose-headers']).toMatch(/request-id/);
    }
    const read = await fromBrowser('GET', url, sk, APP_ORIGIN);
    expect(read.json().responses_received).toBe(0);
  });

  it('carries Access-Control-Allow-Origin on errors of the browser routes, so a page can read them', async () => {
    const unauthenticated = await t.app.inject({ url, headers: { origin: APP_ORIGIN } });
    expectProblem(unauthenticated, 401, 'unauthenticated');
    expect(unauthenticated.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    const wrongSecret = await t.app.inject({ url, headers: { ...auth(anyOrigin), origin: APP_ORIGIN, 'nature-client-secret': 'nope' } });
    expectProblem(wrongSecret, 401, 'unauthenticated');
    expect(wrongSecret.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    const invalid = await fromBrowser('PATCH', url, anyOrigin, APP_ORIGIN, { responses: [{ item_id: 'mn_999', value: 3 }] });
    expectProblem(invalid, 422, 'validation_failed');
    expect(invalid.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('counts pk traffic against the pk key: its 429 carries Retry-After, exposed to the page', async () => {
    // Ten requests per window, so the 429 comes quickly.
    const limited = await openTestApp({ NATURE_RATE_LIMIT_PER_SECOND: '1', NATURE_RATE_LIMIT_BURST: '10' });
    try {
      const get = async (key: string) => limited.app.inject({ url: '/v1/nature/items', headers: { ...auth(key), origin: APP_ORIGIN } });
      const key = (await limited.mint('test', 'pk', ['nature:read'])).raw;
      const answers = [];
      for (let i = 0; i < 11; i++) answers.push(await get(key));
      expect(answers.slice(0, 10).map((a) => a.statusCode)).toEqual(Array(10).fill(200));
      const refused = answers[10]!;
      expectProblem(refused, 429, 'rate_limited');
      expect(refused.headers['retry-after']).toEqual(expect.any(String));
      expect(refused.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(refused.headers['access-control-expose-headers']).toMatch(/Retry-After/);
      // Another pk key has its own budget.
      expect((await get((await limited.mint('test', 'pk', ['nature:read'])).raw)).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
