import { MongoNetworkTimeoutError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { StreamDeletedError } from '../../src/ports/event-store.js';
import { problemTypeOf } from '../support/problems.js';
import { auth, logLength, openTestApp, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('errors as problem+json', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });

  const send = (
    method: 'POST' | 'PUT' | 'DELETE' | 'GET',
    payload: string | undefined,
    contentType?: string,
    url = '/v1/nature/subjects',
  ) =>
    t.app.inject({
      method,
      url,
      headers: { ...auth(key), ...(contentType !== undefined && { 'content-type': contentType }) },
      ...(payload !== undefined && { payload }),
    });

  async function expectProblem(response: Awaited<ReturnType<typeof send>>, status: number, code: string) {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = response.json();
    expect(body).toMatchObject({ type: problemTypeOf(code), status, code, title: expect.any(String), detail: expect.any(String) });
    expect(body.request_id).toBe(response.headers['request-id']);
    return body;
  }

  it.each([
    ['a body that is not JSON', 400, 'invalid_json', '{"external_subject_id": ', 'application/json'],
    ['an empty JSON body', 400, 'invalid_json', '', 'application/json'],
    ['a text/plain body', 415, 'unsupported_media_type', JSON.stringify(validSubject()), 'text/plain'],
    ['a form body', 415, 'unsupported_media_type', 'external_subject_id=x', 'application/x-www-form-urlencoded'],
    ['a JSON body without a content type', 415, 'unsupported_media_type', JSON.stringify(validSubject()), ''],
    ['a body over 64 KiB', 413, 'payload_too_large', JSON.stringify({ ...validSubject(), pad: 'x'.repeat(64 * 1024) }), 'application/json'],
  ])('answers %s with %i %s and stores nothing', async (_case, status, code, payload, contentType) => {
    const before = await logLength(t.envs, 'test');
    await expectProblem(await send('POST', payload, contentType), status, code);
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('answers a wrong method on a known path with 405 and an Allow header', async () => {
    const response = await send('PUT', '{}', 'application/json');
    await expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('GET, POST');
    const one = await send('POST', '{}', 'application/json', '/v1/nature/subjects/sub_01M00000000000000000000000');
    await expectProblem(one, 405, 'method_not_allowed');
    expect(one.headers.allow).toBe('GET, DELETE');
  });

  it('answers a URL that cannot be decoded like any other error, with its request-id', async () => {
    const response = await send('GET', undefined, undefined, '/v1/nature/subjects/%zz');
    const body = await expectProblem(response, 404, 'not_found');
    expect(body.detail).toMatch(/decoded/);
  });

  it('answers an unknown path with 404 not_found', async () => {
    await expectProblem(await send('GET', undefined, undefined, '/v1/nature/nowhere'), 404, 'not_found');
    await expectProblem(await send('GET', undefined, undefined, '/v2/nature/subjects'), 404, 'not_found');
  });

  it.each(['/v1/content/articles', '/v1/content'])('answers the unlaunched product path %s with 404 product_not_available', async (url) => {
    await expectProblem(await send('GET', undefined, undefined, url), 404, 'product_not_available');
  });

  it('gives every response a request-id header, successes included, each one new', async () => {
    const a = await send('GET', undefined);
    const b = await send('GET', undefined);
    expect(a.statusCode).toBe(200);
    expect(a.headers['request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(b.headers['request-id']).not.toBe(a.headers['request-id']);
  });

  it('answers an internal failure with 500 internal_error and no internals', async () => {
    const broken = await openTestApp();
    const brokenKey = (await broken.mint('test', 'sk')).raw;
    await broken.envs.test.readModels.close();
    const response = await broken.app.inject({ url: '/v1/nature/subjects', headers: auth(brokenKey) });
    const body = await expectProblem(response, 500, 'internal_error');
    expect(response.body).not.toMatch(/sqlite|database|stack|\.ts:|at /i);
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'request_id', 'status', 'title', 'type']);
    expect(broken.logs.join('')).toContain(body.request_id);
    await broken.app.close();
  });

  it('answers 404 not_found, not 500, for a resource whose history an operator deleted from the event store (a tombstoned stream)', async () => {
    const t = await openTestApp();
    const key = (await t.mint('test', 'sk')).raw;
    const created = await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(key), payload: validSubject() });
    expect(created.statusCode).toBe(201);
    const subject = created.json() as { id: string };
    const { events } = t.envs.test;
    const readStream = events.readStream.bind(events);
    // What the EventStoreDB adapter answers for a stream deleted for good outside the service.
    Object.assign(events, {
      readStream: (stream: string) => (stream.includes(subject.id) ? Promise.reject(new StreamDeletedError(stream)) : readStream(stream)),
    });
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/nature/subjects/${subject.id}/assessments`,
      headers: auth(key),
      payload: {},
    });
    const body = await expectProblem(response, 404, 'not_found');
    expect(body.detail).toMatch(/deleted from the event log/);
    await t.close();
  });

  it('answers 503 service_unavailable with Retry-After, not 500, while a backend does not answer (MongoDB in an election, say)', async () => {
    const t = await openTestApp();
    const key = (await t.mint('test', 'sk')).raw;
    Object.assign(t.envs.test.readModels, {
      list: () => Promise.reject(new MongoNetworkTimeoutError('connection 3 to 10.0.0.7:27017 timed out')),
    });
    const response = await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key) });
    const body = await expectProblem(response, 503, 'service_unavailable');
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).not.toMatch(/10\.0\.0\.7|timed out|mongo/i);
    expect(body.detail).toMatch(/retry shortly/);
    await t.close();
  });

  it('answers a keyed write 503 when its answer cannot be stored, and its retry the same subject, made once', async () => {
    const t = await openTestApp();
    const key = (await t.mint('test', 'sk')).raw;
    const gone = () => Object.assign(new Error('no server of POSTGRES_URL accepts writes now'), { code: 'ECONNREFUSED' });
    const { idempotency } = t.envs.test;
    const complete = idempotency.complete.bind(idempotency);
    Object.assign(idempotency, { complete: () => Promise.reject(gone()) });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/nature/subjects',
        headers: { ...auth(key), 'idempotency-key': 'failover-2' },
        payload: validSubject('failover-answer'),
      });
    await expectProblem(await send(), 503, 'service_unavailable');
    Object.assign(idempotency, { complete });
    const retried = await send();
    expect(retried.statusCode).toBe(201);
    const listed = await t.app.inject({ url: '/v1/nature/subjects?external_subject_id=failover-answer', headers: auth(key) });
    expect((listed.json() as { data: { id: string }[] }).data.map((subject) => subject.id)).toEqual([retried.json().id]);
    await t.close();
  });

  it('answers a keyed write 503, not 500, when the backend is gone for the key’s release too (a failover under way)', async () => {
    const t = await openTestApp();
    const key = (await t.mint('test', 'sk')).raw;
    const gone = () => Object.assign(new Error('no server of POSTGRES_URL accepts writes now'), { code: 'ECONNREFUSED' });
    const { events, idempotency } = t.envs.test;
    const working = { append: events.appendToStreams.bind(events), release: idempotency.release.bind(idempotency) };
    Object.assign(events, { appendToStreams: () => Promise.reject(gone()) });
    Object.assign(idempotency, { release: () => Promise.reject(gone()) });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/nature/subjects',
        headers: { ...auth(key), 'idempotency-key': 'failover-1' },
        payload: validSubject('failover-subject'),
      });
    const response = await send();
    await expectProblem(response, 503, 'service_unavailable');
    expect(response.headers['retry-after']).toBe('1');
    // The backend back: the retry with the same key runs at once, not 409 idempotency_key_in_use for the lease's 30 s.
    Object.assign(events, { appendToStreams: working.append });
    Object.assign(idempotency, { release: working.release });
    expect((await send()).statusCode).toBe(201);
    await t.close();
  });
});

describe("a problem's type: the URL of its code's entry in the error catalogue", () => {
  const answer = (t: TestApp, headers: Record<string, string>) => t.app.inject({ url: '/v1/nature/nowhere', headers });

  it('is under the origin the request was sent to: its Host, never a forwarded one (no proxy is trusted)', async () => {
    const t = await openTestApp();
    try {
      expect((await answer(t, { host: 'api.example.org:8443' })).json().type).toBe('http://api.example.org:8443/docs/errors#not_found');
      // The default port of the scheme is left out, as in any origin.
      expect((await answer(t, { host: 'API.example.org:80' })).json().type).toBe('http://api.example.org/docs/errors#not_found');
      const forwarded = await answer(t, { host: 'internal:8080', 'x-forwarded-host': 'elsewhere.example', 'x-forwarded-proto': 'https' });
      expect(forwarded.json().type).toBe('http://internal:8080/docs/errors#not_found');
      // A Host that is more than a host and a port is not put into a link: the type stays relative.
      for (const host of ['example.com/evil?', 'user@example.com', 'example.com:port']) {
        expect((await answer(t, { host })).json().type, host).toBe('/docs/errors#not_found');
      }
    } finally {
      await t.close();
    }
  });

  it('is under NATURE_PUBLIC_URL when it is set, whatever the Host', async () => {
    const t = await openTestApp({ NATURE_PUBLIC_URL: 'https://nature.example.com/' });
    try {
      expect((await answer(t, { host: 'internal:8080' })).json().type).toBe('https://nature.example.com/docs/errors#not_found');
      const key = (await t.mint('test', 'sk')).raw;
      const refused = await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(key), payload: {} });
      expect(refused.json()).toMatchObject({
        code: 'validation_failed',
        type: 'https://nature.example.com/docs/errors#validation_failed',
      });
    } finally {
      await t.close();
    }
  });
});
