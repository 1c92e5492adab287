import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/ports/request-log.js';
import { type Body, client } from '../support/api-client.js';
import { Browser, dashboardUser } from '../support/dashboard.js';
import { eventually } from '../support/eventually.js';
import { decodeHtml } from '../support/html-text.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const EXT = 'LOGS-EXT-5b1c-alice@example.com';
const META = 'LOGS-META-93fe';
const SITUATION = 'LOGS-SITUATION-77ad told about a person';

describe('the request log', () => {
  let t: TestApp;
  let key: { id: string; raw: string };
  let live: { id: string; raw: string };
  const sent: Record<string, string> = {};

  /** The record of the request answered with `requestId`, once its batch is written. */
  const recordOf = (requestId: string, environment: 'test' | 'live' = 'test') =>
    eventually(() => t.envs[environment].requests.get(requestId));

  beforeAll(async () => {
    t = await openTestApp();
    key = await t.mint('test', 'sk');
    live = await t.mint('live', 'sk');
    const api = client(t, key.raw);
    const call = async (name: string, method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}) => {
      const response = await t.app.inject({ method, url, headers: { ...auth(key.raw), ...headers }, ...(payload && { payload }) });
      sent[name] = String(response.headers['request-id']);
      return response;
    };
    const created = await call('created', 'POST', '/v1/nature/subjects', validSubject(EXT), { 'idempotency-key': 'idem-logs-1' });
    sent.subjectId = created.json().id;
    await call('exists', 'POST', '/v1/nature/subjects', { ...validSubject(EXT), metadata: { note: META } });
    await call('invalid', 'POST', '/v1/nature/subjects', { external_subject_id: EXT, metadata: { note: META }, consent: 'yes' });
    await call('lookup', 'GET', `/v1/nature/subjects?external_subject_id=${encodeURIComponent(EXT)}&limit=5`);
    await call('wrongPath', 'GET', `/v1/nature/subjects/${encodeURIComponent(EXT)}`);
    await call('noRoute', 'GET', `/v1/nature/${encodeURIComponent(EXT)}/x`);
    await call('situation', 'POST', '/v1/situational/assessments', { subject_id: sent.subjectId, situation_context: SITUATION });
    const badJson = await t.app.inject({
      method: 'POST',
      url: '/v1/nature/subjects',
      headers: { ...auth(key.raw), 'content-type': 'application/json' },
      payload: `{"external_subject_id": "${EXT}",`,
    });
    sent.badJson = String(badJson.headers['request-id']);
    const unknownKey = await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(`test_sk_${'Z'.repeat(36)}WXyz`) });
    sent.unknownKey = String(unknownKey.headers['request-id']);
    const noKey = await t.app.inject({ method: 'GET', url: '/v1/nature/subjects' });
    sent.noKey = String(noKey.headers['request-id']);
    const liveCall = await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(live.raw) });
    sent.live = String(liveCall.headers['request-id']);
    const docs = await t.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: auth(key.raw) });
    sent.docs = String(docs.headers['request-id']);
    await api.call('GET', '/v1/nature/subjects?limit=1');
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps a request as answered: time, method, route and path, status, duration, key, request id, Idempotency-Key', async () => {
    const created = await recordOf(sent.created!);
    expect(created).toMatchObject({
      id: sent.created,
      method: 'POST',
      route: '/v1/nature/subjects',
      path: '/v1/nature/subjects',
      status: 201,
      key_id: key.id,
      key_hint: `test_sk_…${key.raw.slice(-4)}`,
      idempotency_key: 'idem-logs-1',
      problem: null,
    });
    expect(created.at).toBeGreaterThan(Date.now() - 600_000);
    expect(created.duration_ms).toBeGreaterThan(0);
    // The body's outline: its fields, each personal value replaced by its name, nothing of the values.
    expect(created.request_body).toContain('"external_subject_id": ‹external_subject_id›');
    expect(created.request_body).toContain('"metadata": {"cohort": ‹cohort›, "role": ‹role›}');
  });

  it('keeps the problem body of a refusal as sent, its request id included, less the personal values it quoted', async () => {
    const exists = await recordOf(sent.exists!);
    expect(exists.status).toBe(409);
    expect(JSON.parse(exists.problem!)).toMatchObject({ code: 'subject_exists', request_id: sent.exists, subject_id: sent.subjectId });
    const invalid = await recordOf(sent.invalid!);
    expect(JSON.parse(invalid.problem!)).toMatchObject({ code: 'validation_failed', request_id: sent.invalid });
    const badJson = await recordOf(sent.badJson!);
    expect(JSON.parse(badJson.problem!)).toMatchObject({ code: 'invalid_json', detail: 'The request body is not valid JSON.' });
    expect(badJson.request_body).toBeNull();
  });

  it('hides personal values in paths and queries, keeping ids, route words and numbers', async () => {
    expect(await recordOf(sent.lookup!)).toMatchObject({
      route: '/v1/nature/subjects',
      path: '/v1/nature/subjects?external_subject_id=‹external_subject_id›&limit=5',
    });
    expect(await recordOf(sent.wrongPath!)).toMatchObject({ status: 404, path: '/v1/nature/subjects/‹segment›' });
    expect(await recordOf(sent.noRoute!)).toMatchObject({ status: 404, route: null, path: '/v1/nature/‹segment›/‹segment›' });
  });

  it('keeps a refused key under the environment its prefix names, and a request with no key nowhere', async () => {
    expect(await recordOf(sent.unknownKey!)).toMatchObject({ status: 401, key_id: null, key_hint: 'test_sk_…WXyz' });
    expect(await recordOf(sent.live!, 'live')).toMatchObject({ status: 200, key_id: live.id, key_hint: `live_sk_…${live.raw.slice(-4)}` });
    await t.app.close();
    for (const environment of ['test', 'live'] as const) {
      expect(await t.envs[environment].requests.get(sent.noKey!)).toBeUndefined();
      expect(await t.envs[environment].requests.get(sent.docs!)).toBeUndefined();
    }
    expect(await t.envs.test.requests.get(sent.live!)).toBeUndefined();
    expect(await t.envs.live.requests.get(sent.created!)).toBeUndefined();
  });

  it('holds no personal value sent, in any record', async () => {
    const all: RequestRecord[] = (await t.envs.test.requests.list({}, { limit: 100 })).data;
    expect(all).toHaveLength(10);
    const text = JSON.stringify(all);
    for (const value of [EXT, META, SITUATION, encodeURIComponent(EXT), 'alice@example.com']) expect(text).not.toContain(value);
    expect(all.map((each: Body) => each.id)).toContain(sent.situation);
  });
});

describe('the request log of a rate-limited key', () => {
  it('names the key of a 429', async () => {
    const t = await openTestApp({ NATURE_RATE_LIMIT_PER_SECOND: '1', NATURE_RATE_LIMIT_BURST: '1' });
    try {
      const key = await t.mint('test', 'sk');
      const send = () => t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(key.raw) });
      expect((await send()).statusCode).toBe(200);
      const limited = await send();
      expect(limited.statusCode).toBe(429);
      const kept = await eventually(() => t.envs.test.requests.get(String(limited.headers['request-id'])));
      expect(kept).toMatchObject({ status: 429, key_id: key.id, key_hint: `test_sk_…${key.raw.slice(-4)}` });
      expect(JSON.parse(kept.problem!)).toMatchObject({ code: 'rate_limited' });
    } finally {
      await t.close();
    }
  });
});

describe("the dashboard's Requests page", () => {
  let t: TestApp;
  let browser: Browser;
  let key: { id: string; raw: string };
  let other: { id: string; raw: string };
  const ids: string[] = [];

  beforeAll(async () => {
    t = await openTestApp();
    key = await t.mint('test', 'sk');
    other = await t.mint('test', 'sk');
    const send = async (raw: string, url: string) => {
      const response = await t.app.inject({ method: 'GET', url, headers: auth(raw) });
      ids.push(String(response.headers['request-id']));
    };
    // 60 requests, a page and more: the 2nd is refused, the last comes from the other key.
    for (let n = 0; n < 59; n += 1) await send(key.raw, n === 1 ? `/v1/nature/subjects/${EXT}` : '/v1/nature/subjects?limit=1');
    await send(other.raw, '/v1/nature/events?limit=2');
    await eventually(async () => ((await t.envs.test.requests.get(ids.at(-1)!)) ? true : undefined));
    browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
  });
  afterAll(async () => {
    await t.close();
  });

  /** The ids of the requests a page lists, in its order. */
  const listed = (page: string) => [...page.matchAll(/href="\/dashboard\/sandbox\/requests\/(req_[0-9A-Z]{26})"/g)].map((m) => m[1]);

  it('lists the requests newest first, a page at a time, and is in the navigation', async () => {
    const first = await browser.get('/dashboard/sandbox/requests');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('<a href="/dashboard/sandbox/requests" aria-current="page">Requests</a>');
    expect(listed(first.body)).toEqual(ids.toReversed().slice(0, 50));
    const older = /href="(\/dashboard\/sandbox\/requests\?before=req_[0-9A-Z]{26})"/.exec(first.body)![1]!;
    expect(listed((await browser.get(older)).body)).toEqual(ids.toReversed().slice(50));
  });

  it('filters by status class, path or route, key and time', async () => {
    const list = async (query: string) => listed((await browser.get(`/dashboard/sandbox/requests?${query}`)).body);
    expect(await list('status=4xx')).toEqual([ids[1]]);
    expect(await list('status=2xx')).toHaveLength(50);
    expect(await list(`path=${encodeURIComponent('/v1/nature/events')}`)).toEqual([ids.at(-1)]);
    expect(await list(`path=${encodeURIComponent('/v1/nature/subjects/:id')}`)).toEqual([ids[1]]);
    expect(await list(`key=${other.id}`)).toEqual([ids.at(-1)]);
    const last = (await t.envs.test.requests.get(ids.at(-1)!))!;
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await list(`since=${iso(last.at)}&key=${other.id}`)).toEqual([ids.at(-1)]);
    expect(await list(`until=${iso(last.at)}&key=${other.id}`)).toEqual([]);
    // A filter that names nothing is left out, and shown empty.
    const odd = await browser.get('/dashboard/sandbox/requests?status=6xx&since=yesterday&key=nobody');
    expect(odd.statusCode).toBe(200);
    expect(listed(odd.body)).toHaveLength(50);
  });

  it("shows one request's every field, and no personal value", async () => {
    const refused = await browser.get(`/dashboard/sandbox/requests/${ids[1]}`);
    expect(refused.statusCode).toBe(200);
    const text = decodeHtml(refused.body);
    for (const shown of [
      ids[1]!,
      'GET',
      '/v1/nature/subjects/‹segment›',
      '/v1/nature/subjects/:id',
      '404',
      `test_sk_…${key.raw.slice(-4)}`,
      '"code": "not_found"',
    ])
      expect(text).toContain(shown);
    expect(text).not.toContain(EXT);
    expect(text).not.toContain('alice');
    // Another environment's request, or an id that names none, is no page here.
    const live = await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth((await t.mint('live', 'sk')).raw) });
    const liveId = String(live.headers['request-id']);
    await eventually(() => t.envs.live.requests.get(liveId));
    expect((await browser.get(`/dashboard/sandbox/requests/${liveId}`)).statusCode).toBe(404);
    expect((await browser.get('/dashboard/sandbox/requests/req_nothing')).statusCode).toBe(404);
  });

  it('is for signed-in people only', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/dashboard/sandbox/requests' });
    expect(response.statusCode).toBe(303);
  });
});
