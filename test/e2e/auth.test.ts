import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemTypeOf } from '../support/problems.js';
import { auth, logLength, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

describe('authentication, scopes and environments', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const createSubject = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers, payload: validSubject() });

  async function expectProblem(response: Awaited<ReturnType<typeof createSubject>>, status: number, code: string) {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = response.json();
    expect(body).toMatchObject({ status, code, type: problemTypeOf(code), request_id: response.headers['request-id'] });
    expect(body.detail).toEqual(expect.any(String));
    return body;
  }

  it.each([
    ['a missing Authorization header', {}],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed key', { authorization: 'Bearer sk_live_nope' }],
    ['an unknown prefix', { authorization: `Bearer prod_sk_${'a'.repeat(40)}` }],
    ['a well-formed key that was never minted', { authorization: `Bearer test_sk_${'a'.repeat(40)}` }],
  ])('answers 401 unauthenticated to %s, and stores nothing', async (_case, headers) => {
    const before = await logLength(t.envs, 'test');
    await expectProblem(await createSubject(headers), 401, 'unauthenticated');
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('takes the Bearer scheme in any case (RFC 9110: schemes are case-insensitive)', async () => {
    const key = await t.mint('test', 'sk');
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      expect(
        (await t.app.inject({ url: '/v1/nature/subjects', headers: { authorization: `${scheme} ${key.raw}` } })).statusCode,
        scheme,
      ).toBe(200);
    }
  });

  it('answers 401 to a revoked key from the moment it is revoked', async () => {
    const key = await t.mint('test', 'sk');
    expect((await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key.raw) })).statusCode).toBe(200);
    await t.keys.revoke(key.id, new Date().toISOString(), 'revoked');
    const body = await expectProblem(await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key.raw) }), 401, 'unauthenticated');
    expect(body.detail).toMatch(/revoked/);
  });

  it('answers 403 insufficient_scope when a read-only key writes, and stores nothing', async () => {
    const key = await t.mint('test', 'sk', ['nature:read']);
    const before = await logLength(t.envs, 'test');
    const body = await expectProblem(await createSubject(auth(key.raw)), 403, 'insufficient_scope');
    expect(body.required_scope).toBe('nature:write');
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('answers 403 insufficient_scope when a write-only key reads', async () => {
    const key = await t.mint('test', 'sk', ['nature:write']);
    await expectProblem(await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key.raw) }), 403, 'insufficient_scope');
  });

  it('refuses publishable (pk) keys everything but the item bank, whatever their scopes', async () => {
    const key = await t.mint('test', 'pk');
    await expectProblem(await createSubject(auth(key.raw)), 403, 'insufficient_scope');
    await expectProblem(await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key.raw) }), 403, 'insufficient_scope');
  });

  it('keeps sandbox and production apart: a test key gets 404 for a live subject, and lists only its own', async () => {
    const live = await t.mint('live', 'sk');
    const test = await t.mint('test', 'sk');
    const created = await createSubject(auth(live.raw));
    expect(created.statusCode).toBe(201);
    const liveSubject = created.json();
    expect(liveSubject.livemode).toBe(true);

    await expectProblem(await t.app.inject({ url: `/v1/nature/subjects/${liveSubject.id}`, headers: auth(test.raw) }), 404, 'not_found');
    const testList = (await t.app.inject({ url: '/v1/nature/subjects', headers: auth(test.raw) })).json();
    expect(testList.data.map((s: { id: string }) => s.id)).not.toContain(liveSubject.id);
    const liveRead = await t.app.inject({ url: `/v1/nature/subjects/${liveSubject.id}`, headers: auth(live.raw) });
    expect(liveRead.json()).toEqual(liveSubject);
  });

  it('lets the same external_subject_id exist once in each environment', async () => {
    const live = await t.mint('live', 'sk');
    const test = await t.mint('test', 'sk');
    const body = validSubject('shared-id');
    const inLive = await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(live.raw), payload: body });
    const inTest = await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(test.raw), payload: body });
    expect([inLive.statusCode, inTest.statusCode]).toEqual([201, 201]);
    expect([inLive.json().livemode, inTest.json().livemode]).toEqual([true, false]);
  });

  it('answers an unknown route 404 with a key, without one and with a bad one; a known route without a key 401', async () => {
    const key = await t.mint('test', 'sk');
    for (const headers of [{}, auth(key.raw), auth(`${key.raw}x`)]) {
      await expectProblem(await t.app.inject({ url: '/v1/nature/nothing', headers }), 404, 'not_found');
    }
    await expectProblem(await t.app.inject({ method: 'PUT', url: '/v1/nature/subjects' }), 405, 'method_not_allowed');
    await expectProblem(await t.app.inject({ url: '/v1/nature/subjects' }), 401, 'unauthenticated');
  });

  it('never writes an Authorization header or a raw key to the logs', async () => {
    const key = await t.mint('live', 'sk');
    await createSubject(auth(key.raw));
    await t.app.inject({ url: '/v1/nature/subjects', headers: auth(`${key.raw}x`) });
    await t.app.inject({ url: '/v1/nature/nothing', headers: auth(key.raw) });
    const logs = t.logs.join('');
    expect(logs).toContain('incoming request');
    expect(logs).not.toContain(key.raw);
    expect(logs).not.toContain(key.raw.slice(8));
    expect(logs.toLowerCase()).not.toContain('bearer');
  });
});
