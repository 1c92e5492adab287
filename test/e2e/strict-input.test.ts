import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexCatalogue } from '../../src/careers/careers-index.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';
import { expectProblem } from '../support/problems.js';
import { auth, logLength, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  const careers = indexCatalogue(smallCatalogue());
  t = await openTestApp({}, { careers: { current: () => careers } });
  key = (await t.mint('test', 'sk', ['careers:read', 'nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
});
afterAll(async () => {
  await t.close();
});

const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: auth(key), ...(payload !== undefined && { payload: payload as object }) });

/** A body each write route accepts, so that only the query can be what is refused. */
const validBodies: Record<string, unknown> = {
  'POST /v1/nature/subjects': validSubject('emp-strict'),
  'PATCH /v1/nature/subjects/{id}/assessments/{assessment_id}': { responses: [{ item_id: 'mn_001', value: 3 }] },
  'POST /v1/nature/webhook_endpoints': { url: 'http://127.0.0.1:9/h' },
  'POST /v1/careers/matches': { profile: profileOf(0.5) },
  'POST /v1/nature/webhook_endpoints/{id}/replay_failed': { since: '2026-11-01T00:00:00Z' },
  'POST /v1/situational/assessments': { subject_id: 'sub_x', situation_context: 'Tuning a piano by ear before a concert.' },
};

describe('strict input on every route', () => {
  it('refuses an unknown query parameter with 422 on every route of the OpenAPI document and the public ones, changing nothing', async () => {
    const document = (await t.app.inject({ url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    routes.push('GET /healthz', 'GET /readyz', 'GET /v1/openapi.json');
    expect(routes.length).toBeGreaterThan(20);
    const before = await logLength(t.envs, 'test');
    for (const route of routes) {
      const [method, path] = route.split(' ') as ['GET' | 'POST' | 'PATCH' | 'DELETE', string];
      const url = `${path.replace(/\{[a-z_]+\}/g, 'x_unknown')}?confirm=false`;
      const answer = await send(method, url, validBodies[route]);
      const body = expectProblem(answer, 422, 'validation_failed');
      expect({ route, errors: body.errors }).toEqual({
        route,
        errors: [{ path: '/confirm', in: 'query', message: 'Unknown query parameter `confirm`.' }],
      });
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('names a misspelt parameter rather than ignoring it: POST …/assessments?langauge=fr', async () => {
    const subject = (await send('POST', '/v1/nature/subjects', validSubject())).json();
    const answer = await send('POST', `/v1/nature/subjects/${subject.id}/assessments?langauge=fr`);
    // The route takes no query parameter: nothing is close to suggest (`language` belongs in the body).
    expect(expectProblem(answer, 422, 'validation_failed').errors).toEqual([
      { path: '/langauge', in: 'query', message: 'Unknown query parameter `langauge`.' },
    ]);
    expect((await send('GET', `/v1/nature/subjects/${subject.id}/assessments`)).json().data).toEqual([]);
  });

  it.each([
    ['limit=1&limit=2', '/limit', /^`limit` is given 2 times; give it once\.$/],
    ['limit=0x10', '/limit', /decimal/],
    ['limit=1e1', '/limit', /decimal/],
    ['limit=%2B5', '/limit', /decimal/],
    ['limit=05', '/limit', /decimal/],
    ['limit=101', '/limit', /^`limit` must be a whole number from 1 to 100, in decimal digits\.$/],
    ['limit=', '/limit', /decimal/],
    ['starting_after=a&starting_after=b', '/starting_after', /^`starting_after` is given 2 times/],
    ['starting_after=', '/starting_after', /^`starting_after` must not be empty\.$/],
    ['starting_after=a&ending_before=b', '/ending_before', /^`ending_before` cannot be combined with `starting_after`/],
  ])('refuses the list query %s with 422 naming the parameter', async (query, path, message) => {
    const body = expectProblem(await send('GET', `/v1/nature/subjects?${query}`), 422, 'validation_failed');
    expect(body.errors).toEqual([{ path, in: 'query', message: expect.stringMatching(message) }]);
  });

  it('refuses strings that are not well-formed Unicode (lone surrogates), in values and keys, body and query', async () => {
    const cases: [string, string, string][] = [
      [`{"external_subject_id":"a${'\\ud800'}","consent":${JSON.stringify(validSubject().consent)}}`, '/external_subject_id', 'body'],
      [
        `{"external_subject_id":"ok-1","metadata":{"k${'\\udc00'}":"v"},"consent":${JSON.stringify(validSubject().consent)}}`,
        '/metadata/k\udc00',
        'body',
      ],
      [
        `{"external_subject_id":"ok-2","metadata":{"k":"${'\\udfff'}x"},"consent":${JSON.stringify(validSubject().consent)}}`,
        '/metadata/k',
        'body',
      ],
    ];
    for (const [payload, path, where] of cases) {
      const answer = await t.app.inject({
        method: 'POST',
        url: '/v1/nature/subjects',
        headers: { ...auth(key), 'content-type': 'application/json' },
        payload,
      });
      expect(expectProblem(answer, 422, 'validation_failed').errors).toEqual([
        { path, in: where, message: expect.stringMatching(/lone surrogate/) },
      ]);
    }
    // A URL cannot carry a lone surrogate; its nearest form, the surrogate's bytes percent-encoded, is not UTF-8.
    const query = expectProblem(await send('GET', '/v1/nature/subjects?external_subject_id=a%ED%A0%80'), 422, 'validation_failed');
    expect(query.errors).toEqual([{ path: '/external_subject_id', in: 'query', message: expect.stringMatching(/UTF-8/) }]);
  });

  it('counts lengths in code points: 255 emoji are a valid external id, 256 are not; 40-character metadata keys likewise', async () => {
    const emoji = '😀';
    const at = (count: number) => emoji.repeat(count);
    const ok = await send('POST', '/v1/nature/subjects', { ...validSubject(at(255)), metadata: { [at(40)]: at(500) } });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().external_subject_id).toBe(at(255));
    const long = expectProblem(await send('POST', '/v1/nature/subjects', validSubject(at(256))), 422, 'validation_failed');
    expect(long.errors).toEqual([
      { path: '/external_subject_id', in: 'body', message: '`external_subject_id` must be 1 to 255 characters long.' },
    ]);
    const longKey = expectProblem(
      await send('POST', '/v1/nature/subjects', { ...validSubject(), metadata: { [at(41)]: 'v' } }),
      422,
      'validation_failed',
    );
    expect(longKey.errors).toEqual([
      { path: `/metadata/${at(41)}`, in: 'body', message: `\`metadata["${at(41)}"]\` must have a name of 1 to 40 characters.` },
    ]);
    const longValue = expectProblem(
      await send('POST', '/v1/nature/subjects', { ...validSubject(), metadata: { k: at(501) } }),
      422,
      'validation_failed',
    );
    expect(longValue.errors).toEqual([{ path: '/metadata/k', in: 'body', message: '`metadata.k` must be at most 500 characters long.' }]);
  });

  it.each([
    ['NUL', '\u0000'],
    ['a tab', '\t'],
    ['a line feed', '\n'],
    ['ESC', '\u001b'],
    ['DEL', '\u007f'],
    ['a C1 control (NEL)', '\u0085'],
  ])(
    'answers 422 to %s in an external id, a metadata key or value, or an endpoint description, naming the field',
    async (name, control) => {
      const before = await logLength(t.envs, 'test');
      const cases: [string, unknown, string][] = [
        ['/v1/nature/subjects', validSubject(`emp${control}1`), '/external_subject_id'],
        ['/v1/nature/subjects', { ...validSubject(), metadata: { [`k${control}`]: 'v' } }, `/metadata/k${control}`],
        ['/v1/nature/subjects', { ...validSubject(), metadata: { k: `v${control}` } }, '/metadata/k'],
        ['/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', description: `a${control}b` }, '/description'],
      ];
      for (const [url, payload, path] of cases) {
        const problem = expectProblem(await send('POST', url, payload), 422, 'validation_failed');
        expect(problem.errors).toEqual([{ path, in: 'body', message: expect.stringMatching(/control characters/) }]);
      }
      expect(await logLength(t.envs, 'test')).toBe(before);
      // Printable characters of every script, emoji and format-free punctuation stay valid.
      expect(
        (await send('POST', '/v1/nature/subjects', { ...validSubject(`émp-ß-名前-😀 ${name}`), metadata: { clé: 'välue — ok' } }))
          .statusCode,
      ).toBe(201);
    },
  );

  it.each([
    ['2026-02-30T10:00:00Z', false],
    ['2026-11-01T24:00:00Z', false],
    ['2026-12-31T23:59:60Z', false],
    ['1999-12-31T23:59:59Z', false],
    ['2026-11-01T09:30:00.1234567890Z', false],
    ['2026-11-01T09:30:00+01:00', false],
    ['2026-11-01T09:30:00-05:00', false],
    ['2026-11-01T09:30:00+0000', false],
    ['2026-11-01T09:30:00+00:00', '2026-11-01T09:30:00.000Z'],
    ['2026-11-01T09:30:00.25-00:00', '2026-11-01T09:30:00.250Z'],
    ['2026-11-01', false],
    ['2026-11-01T09:30:00Z', '2026-11-01T09:30:00.000Z'],
    ['2026-11-01T09:30:00.5Z', '2026-11-01T09:30:00.500Z'],
    ['2026-11-01T09:30:00.123456789Z', '2026-11-01T09:30:00.123Z'],
  ])('takes consent.granted_at %s only as a real instant, echoed normalised (%s)', async (grantedAt, echoed) => {
    const subject = validSubject();
    const answer = await send('POST', '/v1/nature/subjects', { ...subject, consent: { ...subject.consent, granted_at: grantedAt } });
    if (echoed === false) {
      expect(expectProblem(answer, 422, 'validation_failed').errors).toEqual([
        { path: '/consent/granted_at', in: 'body', message: expect.stringMatching(/UTC timestamp/) },
      ]);
    } else {
      expect(answer.statusCode).toBe(201);
      expect(answer.json().consent.granted_at).toBe(echoed);
      expect((await send('GET', `/v1/nature/subjects/${answer.json().id}`)).json().consent.granted_at).toBe(echoed);
    }
  });
});

describe('bodies and error paths', () => {
  const post = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/nature/subjects',
      headers: { ...auth(key), 'content-type': 'application/json', ...headers },
      payload,
    });

  it('answers 415 to a JSON body declared in a charset other than UTF-8, and takes utf-8 however it is written', async () => {
    const before = await logLength(t.envs, 'test');
    for (const type of [
      'application/json; charset=iso-8859-1',
      'application/json;charset=utf-16',
      'application/json; charset="windows-1252"',
      'application/json; charset=',
    ]) {
      expect(
        expectProblem(await post(JSON.stringify(validSubject()), { 'content-type': type }), 415, 'unsupported_media_type').detail,
      ).toMatch(/UTF-8/);
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
    for (const type of ['application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
      expect((await post(JSON.stringify(validSubject()), { 'content-type': type })).statusCode, type).toBe(201);
    }
  });

  it('answers 400 invalid_json to a member named twice, at any depth, naming where, and stores nothing', async () => {
    const before = await logLength(t.envs, 'test');
    const { consent } = validSubject();
    const consentText = JSON.stringify(consent);
    const cases: [string, string][] = [
      [`{"external_subject_id":"emp-a","external_subject_id":"emp-b","consent":${consentText}}`, '/external_subject_id'],
      [`{"external_subject_id":"emp-a","metadata":{"role":"x","role":"y"},"consent":${consentText}}`, '/metadata/role'],
      [`{"external_subject_id":"emp-a","consent":${consentText.replace('{', '{"ui_hash":"sha256:00",')}}`, '/consent/ui_hash'],
      // The same name written with an escape is the same name.
      [`{"external_subject_id":"emp-a","metadata":{"a/b":"x","a\\u002fb":"y"},"consent":${consentText}}`, '/metadata/a~1b'],
      [`[{"x":1},{"y":2,"y":3}]`, '/1/y'],
    ];
    for (const [body, where] of cases) {
      const problem = expectProblem(await post(body), 400, 'invalid_json');
      expect(problem.detail).toBe(`The request body names the member ${where} twice: member names must be unique within an object.`);
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('takes JSON nested 32 levels deep and refuses 33 with 400 invalid_json before any recursive walk, storing nothing', async () => {
    const before = await logLength(t.envs, 'test');
    const nested = (depth: number) => `{"external_subject_id":"emp-deep","metadata":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    // 32 levels (the body's object and 31 arrays) get as far as validation, which refuses the field's type.
    expect(expectProblem(await post(nested(32)), 422, 'validation_failed').errors).toContainEqual({
      path: '/metadata',
      in: 'body',
      message: '`metadata` must be an object of string values.',
    });
    for (const body of [nested(33), '['.repeat(5000) + ']'.repeat(5000)]) {
      expect(expectProblem(await post(body), 400, 'invalid_json').detail).toBe(
        'The request body nests arrays and objects more than 32 levels deep: no request of this API needs more than 32.',
      );
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('refuses a JSON body that is not UTF-8 with 400 invalid_json, and a content-encoded one with 415', async () => {
    const before = await logLength(t.envs, 'test');
    const subject = JSON.stringify(validSubject('emp-PLACEHOLDER'));
    const [head, tail] = subject.split('PLACEHOLDER') as [string, string];
    expectProblem(await post(Buffer.concat([Buffer.from(head), Buffer.from([0x80]), Buffer.from(tail)])), 400, 'invalid_json');
    for (const coding of ['gzip', 'deflate', 'br', 'x-unknown']) {
      expectProblem(await post(JSON.stringify(validSubject()), { 'content-encoding': coding }), 415, 'unsupported_media_type');
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('points at unknown keys holding "/" or "~" with escaped JSON Pointers, in the body and the query', async () => {
    const body = expectProblem(await post(JSON.stringify({ ...validSubject(), 'a/b~c': 1 })), 422, 'validation_failed');
    expect(body.errors).toEqual([{ path: '/a~1b~0c', in: 'body', message: 'Unknown field `a/b~c`.' }]);
    const query = expectProblem(await send('GET', '/v1/nature/items?a%2Fb~c=1'), 422, 'validation_failed');
    expect(query.errors).toEqual([{ path: '/a~1b~0c', in: 'query', message: 'Unknown query parameter `a/b~c`.' }]);
    const metadata = expectProblem(await post(JSON.stringify({ ...validSubject(), metadata: { 'x/y': 5 } })), 422, 'validation_failed');
    // A key that is not a plain name is quoted where the field is named.
    expect(metadata.errors).toEqual([{ path: '/metadata/x~1y', in: 'body', message: '`metadata["x/y"]` must be a string.' }]);
  });
});

describe('clear 404s', () => {
  it('answers a trailing slash, an empty segment and an over-long id with 404 not_found, like an unknown id', async () => {
    const subject = (await send('POST', '/v1/nature/subjects', validSubject())).json();
    for (const url of [
      '/v1/nature/subjects/',
      `/v1/nature/subjects/${subject.id}/`,
      `/v1/nature/subjects/${subject.id}/assessments/`,
      '/v1/nature/items/',
      '/v1/nature/subjects//assessments',
    ]) {
      const body = expectProblem(await send('GET', url), 404, 'not_found');
      expect(body.detail).toMatch(/no empty segment and no trailing slash/);
    }
    const longId = `sub_${'X'.repeat(5000)}`;
    expect(expectProblem(await send('GET', `/v1/nature/subjects/${longId}`), 404, 'not_found').detail).toBe(`No subject ${longId}.`);
    expect(expectProblem(await send('GET', '/v1/nature/subjects/sub_unknown'), 404, 'not_found').detail).toBe('No subject sub_unknown.');
  });

  it('answers an unknown route 404 without a key, an unknown product 404 product_not_available', async () => {
    expectProblem(await t.app.inject({ url: '/v1/nature/nothing' }), 404, 'not_found');
    expectProblem(await t.app.inject({ url: '/nothing/at/all' }), 404, 'not_found');
    expectProblem(await t.app.inject({ url: '/v1/content/articles' }), 404, 'product_not_available');
  });
});

describe('errors before the router', () => {
  let port: number;
  beforeAll(async () => {
    const server = await openTestApp();
    t2 = server;
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
  });
  let t2: TestApp;
  afterAll(async () => {
    await t2.close();
  });

  /** Sends raw bytes and reads the whole answer until the server closes the connection. */
  function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head = '', body = ''] = text.split('\r\n\r\n');
        const [statusLine, ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine?.split(' ')[1]), headers, body });
      });
      socket.end(request);
    });
  }

  const asProblem = (answer: Awaited<ReturnType<typeof raw>>) => ({
    statusCode: answer.status,
    headers: answer.headers,
    json: () => JSON.parse(answer.body),
  });

  it('answers oversized headers 431 header_fields_too_large as problem+json with a request id', async () => {
    const answer = await raw(`GET /v1/nature/items HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    // Refused by the HTTP parser, which keeps no Host to trust: the type is relative.
    expectProblem(asProblem(answer), 431, 'header_fields_too_large', '');
    expect(answer.headers['request-id']).toMatch(/^req_/);
  });

  it('answers a request the HTTP parser cannot read 400 malformed_request as problem+json', async () => {
    for (const request of [
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /v1/nature/items HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'GET / HTTP/1.1\r\nBad Header\r\n\r\n',
    ]) {
      const answer = await raw(request);
      expectProblem(asProblem(answer), 400, 'malformed_request', '');
    }
  });

  it('answers HTTP/1.1 without a Host, or with two, 400 malformed_request; an unknown Expect 417 expectation_failed', async () => {
    expectProblem(asProblem(await raw('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n')), 400, 'malformed_request', '');
    expectProblem(
      asProblem(await raw('GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n')),
      400,
      'malformed_request',
      'http://a',
    );
    const expectation = await raw('GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\nConnection: close\r\n\r\n');
    expectProblem(asProblem(expectation), 417, 'expectation_failed', 'http://a');
    expect((await raw('GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });

  it('answers a Transfer-Encoding that does not end in chunked 400 malformed_request, on routes with and without a body', async () => {
    const key = (await t2.mint('test', 'sk')).raw;
    for (const [method, path] of [
      ['DELETE', '/v1/nature/subjects/sub_01M8HZEPBJYDFX23ZHY19F2SSK/assessments/asm_01M8HZEPC3KYZ1ZKZ5B1GX02JP'],
      ['POST', '/v1/nature/subjects'],
      ['GET', '/v1/nature/items'],
    ]) {
      for (const coding of ['gzip', 'chunked, gzip']) {
        const answer = await raw(
          `${method} ${path} HTTP/1.1\r\nTransfer-Encoding: ${coding}\r\nHost: a\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n\r\n`,
        );
        // Refused by the gate or, for some codings, by Node's parser first: one answer either way (the body is one JSON value).
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'malformed_request' });
      }
    }
  });

  it("answers a body cut short 400 malformed_request, and logs it as the client's doing, not as an error", async () => {
    const key = (await t2.mint('test', 'sk')).raw;
    const answer = await raw(
      `POST /v1/nature/subjects HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ext`,
    );
    expectProblem(asProblem(answer), 400, 'malformed_request', '');
    expect(t2.logs.join('')).not.toMatch(/"level":50/);
  });

  it('answers a request that arrives while the server shuts down 503 service_unavailable', async () => {
    const closing = await openTestApp();
    let answer: Promise<Response> | undefined;
    let origin = '';
    // Registered before the server starts; runs once shutting down has begun, while it still listens.
    closing.app.addHook('preClose', async () => {
      origin = `http://127.0.0.1:${(closing.app.server.address() as AddressInfo).port}`;
      answer = fetch(`${origin}/healthz`);
      await answer;
    });
    await closing.app.listen({ port: 0, host: '127.0.0.1' });
    await closing.close();
    const response = await answer!;
    const headers = Object.fromEntries(response.headers);
    const body = await response.text();
    expectProblem({ statusCode: response.status, headers, json: () => JSON.parse(body) }, 503, 'service_unavailable', origin);
    expect(headers['retry-after']).toBe('1');
  });
});
