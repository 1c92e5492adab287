import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  createNatureClient,
  isNatureApiError,
  NatureApiError,
  NatureTimeoutError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../packages/client/src/index.js';
import { retryAfterMs, retryingFetch } from '../../packages/client/src/retry.js';

const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({
      type: `https://nature.example.com/docs/errors#${code}`,
      title: code,
      status,
      detail: `${code} happened`,
      code,
      request_id: 'req_1',
      ...extra,
    }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', 'request-id': 'req_1', ...headers },
    },
  );
const ok = () => new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json' } });

/** A fetch that answers from `answers` in turn (a thrown Error for a network failure) and keeps what it was sent. */
function scripted(...answers: (Response | Error)[]) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no answer scripted');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, sent };
}

describe('client retries', () => {
  const retried = (fetch: (request: Request) => Promise<Response>, options = {}) => {
    const waits: number[] = [];
    const send = retryingFetch(fetch, options, undefined, async (ms) => {
      waits.push(ms);
    });
    return { send, waits };
  };
  const post = () => new Request('http://api.test/v1/nature/subjects', { method: 'POST', body: '{"a":1}' });

  it('waits as Retry-After says (seconds or a date) on 429, 503 and the 409 of a key still in use, then returns the answer', async () => {
    const { fetch, sent } = scripted(
      problem(429, 'rate_limited', {}, { 'retry-after': '2' }),
      problem(503, 'service_unavailable', {}, { 'retry-after': '1' }),
      problem(409, 'idempotency_key_in_use', {}, { 'retry-after': '1' }),
      ok(),
    );
    const { send, waits } = retried(fetch);
    expect((await send(post())).status).toBe(200);
    expect(waits).toEqual([2000, 1000, 1000]);
    // Every attempt carried the body.
    expect(await Promise.all(sent.map((request) => request.text()))).toEqual(Array(4).fill('{"a":1}'));
    const date = new Response(null, { headers: { 'retry-after': new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString() } });
    expect(retryAfterMs(date, Date.UTC(2026, 0, 1, 0, 0, 0))).toBe(30_000);
  });

  it('backs off exponentially on 5xx without Retry-After and on network errors, and gives up after maxRetries', async () => {
    const { fetch, sent } = scripted(
      problem(500, 'internal_error'),
      new TypeError('fetch failed'),
      problem(502, 'internal_error'),
      problem(500, 'internal_error'),
    );
    const { send, waits } = retried(fetch, { maxRetries: 3, baseDelayMs: 100 });
    expect((await send(post())).status).toBe(500);
    expect(sent).toHaveLength(4);
    expect(waits).toHaveLength(3);
    waits.forEach((wait, retry) => {
      expect(wait).toBeGreaterThanOrEqual(50 * 2 ** retry);
      expect(wait).toBeLessThanOrEqual(100 * 2 ** retry);
    });
  });

  it('rethrows the network error once retries are spent, and never retries a caller who aborted', async () => {
    const failing = scripted(new TypeError('fetch failed'), new TypeError('fetch failed again'));
    await expect(retried(failing.fetch, { maxRetries: 1 }).send(post())).rejects.toThrow('fetch failed again');
    const controller = new AbortController();
    controller.abort();
    const aborted = scripted(new DOMException('aborted', 'AbortError'), ok());
    await expect(retried(aborted.fetch).send(new Request('http://api.test/x', { signal: controller.signal }))).rejects.toThrow('aborted');
    expect(aborted.sent).toHaveLength(1);
  });

  it('does not retry what would fail again, nor beyond the longest wait it accepts', async () => {
    for (const answer of [
      problem(400, 'invalid_json'),
      problem(404, 'not_found'),
      problem(409, 'subject_exists'),
      problem(422, 'validation_failed'),
    ]) {
      const { fetch, sent } = scripted(answer);
      expect((await retried(fetch).send(post())).status).toBe(answer.status);
      expect(sent).toHaveLength(1);
    }
    const { fetch, sent } = scripted(problem(429, 'rate_limited', {}, { 'retry-after': '3600' }));
    expect((await retried(fetch, { maxDelayMs: 20_000 }).send(post())).status).toBe(429);
    expect(sent).toHaveLength(1);
  });
});

describe('client requests and errors', () => {
  it('authenticates every request and gives each POST and PATCH a fresh Idempotency-Key, kept on its retries; a chosen key is kept', async () => {
    const { fetch, sent } = scripted(new TypeError('fetch failed'), ok(), ok(), ok(), ok(), ok());
    const nature = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://api.test', fetch, retries: { baseDelayMs: 1 } });
    await nature.POST('/v1/nature/subjects', {
      body: { external_subject_id: 'e', consent: { text_version: 'v', granted_at: '2026-11-01T09:30:00Z', ui_hash: 'sha256:00' } },
    });
    await nature.PATCH('/v1/nature/subjects/{id}/assessments/{assessment_id}', {
      params: { path: { id: 'sub_1', assessment_id: 'asm_1' } },
      body: { responses: [{ item_id: 'mn_001', value: 4 }] },
    });
    await nature.GET('/v1/nature/subjects/{id}', { params: { path: { id: 'sub_1' } } });
    await nature.DELETE('/v1/nature/subjects/{id}', { params: { path: { id: 'sub_1' } } });
    await nature.raw.POST('/v1/nature/events/{id}/redeliver', {
      params: { path: { id: 'evt_1' } },
      headers: { 'idempotency-key': 'mine' },
    });
    expect(sent.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'POST /v1/nature/subjects',
      'POST /v1/nature/subjects',
      'PATCH /v1/nature/subjects/sub_1/assessments/asm_1',
      'GET /v1/nature/subjects/sub_1',
      'DELETE /v1/nature/subjects/sub_1',
      'POST /v1/nature/events/evt_1/redeliver',
    ]);
    expect(sent.every((request) => request.headers.get('authorization') === 'Bearer test_sk_x')).toBe(true);
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys.slice(0, 3).every((key) => key !== null && /^[0-9a-f-]{36}$/.test(key))).toBe(true);
    expect(keys.slice(3)).toEqual([null, null, 'mine']);
  });

  it('rejects with a NatureApiError carrying the problem members, narrowed by code', async () => {
    const { fetch } = scripted(
      problem(409, 'assessment_not_open', { assessment_status: 'completed' }),
      problem(422, 'validation_failed', {
        errors: [{ path: '/responses/0/value', in: 'body', message: '`responses[0].value` must be a whole number from 1 to 5.' }],
      }),
      problem(403, 'insufficient_scope', { required_scope: 'nature:write' }),
    );
    const nature = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://api.test', fetch });
    const patch = () =>
      nature.PATCH('/v1/nature/subjects/{id}/assessments/{assessment_id}', {
        params: { path: { id: 'sub_1', assessment_id: 'asm_1' } },
        body: { responses: [{ item_id: 'mn_001', value: 4 }] },
      });
    const notOpen = await patch().catch((error: unknown) => error);
    if (!isNatureApiError(notOpen, 'assessment_not_open')) throw notOpen;
    expect(notOpen).toMatchObject({
      status: 409,
      code: 'assessment_not_open',
      assessment_status: 'completed',
      detail: 'assessment_not_open happened',
      request_id: 'req_1',
    });
    expect(notOpen.message).toBe('assessment_not_open happened');
    const invalid = await patch().catch((error: unknown) => error);
    if (!isNatureApiError(invalid, 'validation_failed')) throw invalid;
    expect(invalid.errors.map((error) => error.path)).toEqual(['/responses/0/value']);
    const scope = await patch().catch((error: unknown) => error);
    expect(isNatureApiError(scope, 'validation_failed', 'subject_exists')).toBe(false);
    if (!isNatureApiError(scope)) throw scope;
    expect(scope.code === 'insufficient_scope' && scope.required_scope).toBe('nature:write');
    expect(scope.subject_id).toBeUndefined();
  });

  it('says so when an error answer is not problem+json (a proxy in the way)', async () => {
    const html = new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    const nature = createNatureClient({
      apiKey: 'test_sk_x',
      baseUrl: 'http://api.test',
      fetch: scripted(html).fetch,
      retries: { maxRetries: 0 },
    });
    const error = await nature.GET('/v1/nature/items').catch((error: unknown) => error);
    expect(error).toBeInstanceOf(NatureApiError);
    expect(error).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      problem: undefined,
      detail: 'The server answered 502 (text/html), not a problem+json body.',
    });
  });
});

/** A fetch that records what it is sent and answers 200 with `body` (a list page for GETs of lists). */
function recording(body: (request: Request) => unknown = () => ({ ok: true })) {
  const sent: { method: string; path: string; body: unknown; headers: Headers }[] = [];
  const fetch = async (request: Request) => {
    // As fetch does: an aborted request is never sent.
    if (request.signal.aborted) throw request.signal.reason;
    const text = await request.text();
    const url = new URL(request.url);
    sent.push({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      body: text ? JSON.parse(text) : undefined,
      headers: request.headers,
    });
    return new Response(JSON.stringify(body(request)), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, sent };
}

/** A fetch that never answers: it rejects only when its request is aborted. */
function hanging() {
  const sent: Request[] = [];
  const fetch = (request: Request) =>
    new Promise<Response>((_resolve, reject) => {
      sent.push(request);
      request.signal.addEventListener('abort', () => reject(request.signal.reason));
    });
  return { fetch, sent };
}

describe('client resources', () => {
  it('sends each resource method to its route, with its parameters and body', async () => {
    const emptyList = { object: 'list', data: [], has_more: false };
    const { fetch, sent } = recording((request) => (request.method === 'GET' ? emptyList : { ok: true }));
    const nature = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://api.test', fetch });
    const consent = { text_version: 'v', granted_at: '2026-11-01T09:30:00Z', ui_hash: 'sha256:00' };
    await nature.subjects.create({ external_subject_id: 'e', consent });
    await nature.subjects.get('sub_1');
    await nature.subjects.list({ limit: 5, external_subject_id: 'e' });
    await nature.subjects.erase('sub_1');
    await nature.subjects.audit('sub_1', { limit: 2 });
    await nature.items.list();
    await nature.assessments.start('sub_1', { language: 'en' });
    await nature.assessments.start('sub_1');
    await nature.assessments.list('sub_1');
    await nature.assessments.get('sub_1', 'asm_1');
    await nature.assessments.submit('sub_1', 'asm_1', { responses: [{ item_id: 'mn_001', value: 4 }] });
    await nature.assessments.abandon('sub_1', 'asm_1');
    await nature.profiles.latest('sub_1');
    await nature.profiles.get('prf_1');
    await nature.webhookEndpoints.create({ url: 'https://example.com/hooks' });
    await nature.webhookEndpoints.list();
    await nature.webhookEndpoints.get('we_1');
    await nature.webhookEndpoints.update('we_1', { status: 'disabled' });
    await nature.webhookEndpoints.delete('we_1');
    await nature.webhookEndpoints.rotateSecret('we_1');
    await nature.webhookEndpoints.sendTest('we_1');
    await nature.webhookEndpoints.deliveries('we_1', { limit: 3 });
    await nature.events.list({ limit: 1 });
    await nature.events.get('evt_1');
    await nature.events.redeliver('evt_1');
    await nature.usage.get({ granularity: 'month' });
    await nature.careers.search({ query: 'nurse', job_zone: '3,4' });
    await nature.careers.get('car_rn');
    await nature.careers.match({ profile_id: 'prf_1', limit: 5 });
    await nature.situational.create({ subject_id: 'sub_1', situation_context: 'Planning a move with the whole team.' });
    await nature.situational.create({ subject_id: 'sub_1', situation_context: 'Planning a move with the whole team.', language: 'fr' });
    await nature.situational.get('sit_1');
    await nature.situational.list({ subject_id: 'sub_1', limit: 2 });
    await nature.situational.list();
    await nature.assessmentLinks.create('sub_1', { language: 'fr', return_url: 'https://app.example.com/done' });
    await nature.assessmentLinks.create('sub_1');
    await nature.assessmentLinks.list('sub_1', { limit: 2 });
    await nature.assessmentLinks.get('lnk_1');
    await nature.assessmentLinks.revoke('lnk_1');
    expect(sent.map(({ method, path, body }) => [method, path, body])).toEqual([
      ['POST', '/v1/nature/subjects', { external_subject_id: 'e', consent }],
      ['GET', '/v1/nature/subjects/sub_1', undefined],
      ['GET', '/v1/nature/subjects?limit=5&external_subject_id=e', undefined],
      ['DELETE', '/v1/nature/subjects/sub_1', undefined],
      ['GET', '/v1/nature/subjects/sub_1/audit?limit=2', undefined],
      ['GET', '/v1/nature/items', undefined],
      ['POST', '/v1/nature/subjects/sub_1/assessments', { language: 'en' }],
      ['POST', '/v1/nature/subjects/sub_1/assessments', {}],
      ['GET', '/v1/nature/subjects/sub_1/assessments', undefined],
      ['GET', '/v1/nature/subjects/sub_1/assessments/asm_1', undefined],
      ['PATCH', '/v1/nature/subjects/sub_1/assessments/asm_1', { responses: [{ item_id: 'mn_001', value: 4 }] }],
      ['DELETE', '/v1/nature/subjects/sub_1/assessments/asm_1', undefined],
      ['GET', '/v1/nature/subjects/sub_1/profile', undefined],
      ['GET', '/v1/nature/profiles/prf_1', undefined],
      ['POST', '/v1/nature/webhook_endpoints', { url: 'https://example.com/hooks' }],
      ['GET', '/v1/nature/webhook_endpoints', undefined],
      ['GET', '/v1/nature/webhook_endpoints/we_1', undefined],
      ['PATCH', '/v1/nature/webhook_endpoints/we_1', { status: 'disabled' }],
      ['DELETE', '/v1/nature/webhook_endpoints/we_1', undefined],
      ['POST', '/v1/nature/webhook_endpoints/we_1/rotate_secret', {}],
      ['POST', '/v1/nature/webhook_endpoints/we_1/test', {}],
      ['GET', '/v1/nature/webhook_endpoints/we_1/deliveries?limit=3', undefined],
      ['GET', '/v1/nature/events?limit=1', undefined],
      ['GET', '/v1/nature/events/evt_1', undefined],
      ['POST', '/v1/nature/events/evt_1/redeliver', {}],
      ['GET', '/v1/nature/usage?granularity=month', undefined],
      ['GET', '/v1/careers?query=nurse&job_zone=3%2C4', undefined],
      ['GET', '/v1/careers/car_rn', undefined],
      ['POST', '/v1/careers/matches', { profile_id: 'prf_1', limit: 5 }],
      ['POST', '/v1/situational/assessments', { subject_id: 'sub_1', situation_context: 'Planning a move with the whole team.' }],
      [
        'POST',
        '/v1/situational/assessments',
        { subject_id: 'sub_1', situation_context: 'Planning a move with the whole team.', language: 'fr' },
      ],
      ['GET', '/v1/situational/assessments/sit_1', undefined],
      ['GET', '/v1/situational/assessments?subject_id=sub_1&limit=2', undefined],
      ['GET', '/v1/situational/assessments', undefined],
      ['POST', '/v1/nature/subjects/sub_1/assessment_links', { language: 'fr', return_url: 'https://app.example.com/done' }],
      ['POST', '/v1/nature/subjects/sub_1/assessment_links', {}],
      ['GET', '/v1/nature/subjects/sub_1/assessment_links?limit=2', undefined],
      ['GET', '/v1/nature/assessment_links/lnk_1', undefined],
      ['POST', '/v1/nature/assessment_links/lnk_1/revoke', {}],
    ]);
  });

  it('a list awaited is its first page; iterated, it is every item of every page, the first page fetched once', async () => {
    const ids = ['sub_5', 'sub_4', 'sub_3', 'sub_2', 'sub_1'];
    const { fetch, sent } = recording((request) => {
      const query = new URL(request.url).searchParams;
      const from = query.has('starting_after') ? ids.indexOf(query.get('starting_after')!) + 1 : 0;
      const data = ids.slice(from, from + 2).map((id) => ({ id }));
      return { object: 'list', data, has_more: from + 2 < ids.length };
    });
    const nature = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://api.test', fetch });
    const list = nature.subjects.list({ limit: 2 });
    expect(sent).toEqual([]);
    const page = await list;
    expect(page.data.map((subject) => subject.id)).toEqual(['sub_5', 'sub_4']);
    const every: string[] = [];
    for await (const subject of list) every.push(subject.id);
    expect(every).toEqual(ids);
    expect(sent.map(({ path }) => path)).toEqual([
      '/v1/nature/subjects?limit=2',
      '/v1/nature/subjects?limit=2&starting_after=sub_4',
      '/v1/nature/subjects?limit=2&starting_after=sub_2',
    ]);
  });

  it('takes per-call options: an Idempotency-Key of its own, more headers, a signal', async () => {
    const { fetch, sent } = recording();
    const nature = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://api.test', fetch });
    await nature.assessments.submit(
      'sub_1',
      'asm_1',
      { responses: [] },
      { idempotencyKey: 'batch-1', headers: { 'x-client-secret': 's' } },
    );
    expect(sent[0]!.headers.get('idempotency-key')).toBe('batch-1');
    expect(sent[0]!.headers.get('x-client-secret')).toBe('s');
    const abort = new AbortController();
    abort.abort();
    await expect(nature.items.list({}, { signal: abort.signal })).rejects.toThrow();
    expect(sent).toHaveLength(1);
  });
});

describe('client time-outs', () => {
  it('gives up on an attempt that gets no answer in time, retries it with the same Idempotency-Key, then rejects with NatureTimeoutError', async () => {
    const { fetch, sent } = hanging();
    const nature = createNatureClient({
      apiKey: 'test_sk_x',
      baseUrl: 'http://api.test',
      fetch,
      timeoutMs: 20,
      retries: { baseDelayMs: 1 },
    });
    const error = await nature.subjects
      .create({ external_subject_id: 'e', consent: { text_version: 'v', granted_at: '2026-11-01T09:30:00Z', ui_hash: 'sha256:00' } })
      .catch((error: unknown) => error);
    expect(error).toBeInstanceOf(NatureTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 20, message: 'No answer within 20 ms.' });
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('a call sets its own time-out over the client default; a stalled body times out too; the caller’s abort is not a time-out', async () => {
    const { fetch, sent } = hanging();
    const nature = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://api.test', fetch, retries: { maxRetries: 0 } });
    await expect(nature.events.get('evt_1', { timeoutMs: 10 })).rejects.toBeInstanceOf(NatureTimeoutError);

    const stalledBody = async (request: Request) =>
      new Response(
        new ReadableStream({
          start: (controller) => request.signal.addEventListener('abort', () => controller.error(request.signal.reason)),
        }),
        { status: 200 },
      );
    const slow = createNatureClient({
      apiKey: 'test_sk_x',
      baseUrl: 'http://api.test',
      fetch: stalledBody,
      retries: { maxRetries: 0 },
      timeoutMs: 10,
    });
    await expect(slow.items.list()).rejects.toBeInstanceOf(NatureTimeoutError);

    const abort = new AbortController();
    const call = nature.events.get('evt_1', { signal: abort.signal, timeoutMs: 60_000 });
    await expect.poll(() => sent.length).toBe(2);
    abort.abort();
    const error = await call.catch((error: unknown) => error);
    expect(error).not.toBeInstanceOf(NatureTimeoutError);
    expect(error).toMatchObject({ name: 'AbortError' });
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.from('a secret of twenty-four b').toString('base64')}`;
  const event = {
    id: 'evt_1',
    object: 'event',
    type: 'nature.assessment.completed',
    created_at: '2026-11-21T19:32:03.349Z',
    livemode: false,
    data: { profile_id: 'prf_1', assessment_id: 'asm_1', subject_id: 'sub_1' },
  };
  const body = JSON.stringify(event);
  const signed = (payload = body, at = new Date()) => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_1', at, payload),
  });

  it('returns the event of a genuine delivery, from Node, Fetch or plain headers and a string or bytes body', () => {
    const headers = signed();
    expect(verifyWebhook(body, headers, secret)).toEqual(event);
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret)).toEqual(event);
    const shouted = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(body, shouted, secret)).toEqual(event);
  });

  it('returns a situational.assessment.completed event, its data narrowed by its type', () => {
    const situational = {
      ...event,
      type: 'situational.assessment.completed',
      data: { id: 'sit_1', subject_id: 'sub_1', status: 'completed' },
    };
    const payload = JSON.stringify(situational);
    const verified = verifyWebhook(payload, signed(payload), secret);
    expect(verified).toEqual(situational);
    // Compiles only while comparing `type` narrows `data`: the situational assessment's id, not a profile's.
    if (verified.type !== 'situational.assessment.completed') throw new Error(`not narrowed: ${verified.type}`);
    expect([verified.data.id, verified.data.status]).toEqual(['sit_1', 'completed']);
  });

  it('throws WebhookVerificationError on a changed body, another secret or a stale timestamp', () => {
    expect(() => verifyWebhook(body.replace('prf_1', 'prf_2'), signed(), secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, signed(), `whsec_${Buffer.from('another secret entirely!').toString('base64')}`)).toThrow(
      WebhookVerificationError,
    );
    const stale = new Date(Date.now() - 10 * 60_000);
    expect(() => verifyWebhook(body, signed(body, stale), secret)).toThrow(WebhookVerificationError);
  });
});
