import { describe, expect, it } from 'vitest';
import {
  type ApiError,
  closedOutcome,
  createApi,
  type FetchInit,
  isRetryable,
  NETWORK_MESSAGE,
  parseRetryAfter,
  type ResponseLike,
  retryDelay,
} from '../../packages/embed/src/api.js';

function response(status: number, body: unknown, headers: Record<string, string> = {}): ResponseLike {
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    json: async () => (typeof body === 'string' ? JSON.parse(body) : body),
    text: async () => (typeof body === 'string' ? body : JSON.stringify(body)),
  };
}

/** An api over a fake fetch that records each request and answers with `answer`, and the Date headers it reported. */
function apiAnswering(answer: () => Promise<ResponseLike>) {
  const requests: { url: string; init: FetchInit }[] = [];
  const dates: string[] = [];
  const api = createApi({
    base: 'https://api.example.com/',
    publishableKey: 'test_pk_abc',
    clientSecret: 'asm_1_secret_xyz',
    subjectId: 'sub_1',
    assessmentId: 'asm_1',
    fetch: (url, init) => {
      requests.push({ url, init });
      return answer();
    },
    onServerDate: (date) => dates.push(date),
  });
  return { api, requests, dates };
}

const assessmentBody = { id: 'asm_1', object: 'assessment', status: 'in_progress', responses_received: 2, unanswered_item_ids: ['mn_003'] };

const error = (status: number | null, code: string, retryAfterMs: number | null = null): ApiError => ({
  code,
  status,
  title: code,
  detail: code,
  request_id: null,
  retryAfterMs,
});

describe('the embed API client', () => {
  it('reads the chart of a result-visible assessment as SVG text, with the key, the secret, the theme and the width', async () => {
    const { api, requests } = apiAnswering(async () => response(200, '<svg xmlns="http://www.w3.org/2000/svg"/>'));
    expect(await api.chart('prf_1', { width: 640, theme: 'dark' })).toEqual({
      ok: true,
      value: '<svg xmlns="http://www.w3.org/2000/svg"/>',
    });
    expect(requests[0]?.url).toBe('https://api.example.com/v1/nature/profiles/prf_1/chart.svg?theme=dark&width=640');
    expect(requests[0]?.init.headers).toMatchObject({ 'Nature-Client-Secret': expect.any(String) });
    const { api: refusing } = apiAnswering(async () => response(401, { code: 'unauthenticated', title: 'Unauthenticated', detail: 'No.' }));
    expect(await refusing.chart('prf_1', { width: 640, theme: 'light' })).toMatchObject({
      ok: false,
      error: { code: 'unauthenticated', status: 401 },
    });
  });

  it("reads the subject's latest profile id with the secret, and a chart whose body breaks off as a network error", async () => {
    const { api, requests } = apiAnswering(async () => response(200, { id: 'prf_1', object: 'profile' }));
    expect(await api.latestProfile()).toEqual({ ok: true, value: { id: 'prf_1' } });
    expect(requests[0]?.url).toBe('https://api.example.com/v1/nature/subjects/sub_1/profile');
    const broken = { ...response(200, ''), text: () => Promise.reject(new TypeError('terminated')) };
    const { api: cut } = apiAnswering(async () => broken);
    expect(await cut.chart('prf_1', { width: 640, theme: 'light' })).toMatchObject({ ok: false, error: { code: 'network_error' } });
  });

  it('reads whether the result is visible, and the profile id, from the assessment', async () => {
    const { api } = apiAnswering(async () =>
      response(200, {
        ...assessmentBody,
        status: 'completed',
        unanswered_item_ids: [],
        result_visible_to_subject: true,
        profile_id: 'prf_1',
      }),
    );
    expect(await api.assessment()).toMatchObject({
      ok: true,
      value: { status: 'completed', result_visible_to_subject: true },
    });
  });

  it("reads the assessment's language where the API gives it, and tolerates an older API without it", async () => {
    const { api } = apiAnswering(async () => response(200, { ...assessmentBody, language: 'fr' }));
    expect(await api.assessment()).toMatchObject({ ok: true, value: { language: 'fr' } });
    const { api: older } = apiAnswering(async () => response(200, assessmentBody));
    const result = await older.assessment();
    expect(result.ok).toBe(true);
    expect(result.ok && result.value).not.toHaveProperty('language');
  });

  it('PATCHes a batch with the publishable key, the client secret, the Idempotency-Key and keepalive (no timeout when leaving)', async () => {
    const { api, requests } = apiAnswering(async () => response(200, assessmentBody));
    const result = await api.submit('key-1', [{ item_id: 'mn_001', value: 4 }], true);
    expect(result).toEqual({
      ok: true,
      value: {
        id: 'asm_1',
        status: 'in_progress',
        responses_received: 2,
        unanswered_item_ids: ['mn_003'],
        result_visible_to_subject: false,
      },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe('https://api.example.com/v1/nature/subjects/sub_1/assessments/asm_1');
    expect(requests[0]?.init).toEqual({
      method: 'PATCH',
      headers: {
        Authorization: 'Bearer test_pk_abc',
        'Nature-Client-Secret': 'asm_1_secret_xyz',
        'Content-Type': 'application/json',
        'Idempotency-Key': 'key-1',
      },
      body: JSON.stringify({ responses: [{ item_id: 'mn_001', value: 4 }] }),
      keepalive: true,
    });
  });

  it("sends each answer's timing as given, in the body a resend repeats", async () => {
    const { api, requests } = apiAnswering(async () => response(200, assessmentBody));
    const responses = [
      { item_id: 'mn_001', value: 4, answered_at: '2026-03-01T10:00:02.345Z', response_time_ms: 2345 },
      { item_id: 'mn_002', value: 2 },
    ];
    await api.submit('key-1', responses, false);
    await api.submit('key-1', responses, false);
    expect(JSON.parse(requests[0]!.init.body!)).toEqual({ responses });
    expect(requests[1]!.init.body).toBe(requests[0]!.init.body);
  });

  it('reports the Date header of every response it reads (answers and refusals, the chart too), as it arrives; none when there is none', async () => {
    const date = 'Sun, 01 Mar 2026 10:00:00 GMT';
    const { api, dates } = apiAnswering(async () => response(200, assessmentBody, { date }));
    await api.assessment();
    await api.submit('key-1', [{ item_id: 'mn_001', value: 4 }], false);
    expect(dates).toEqual([date, date]);
    const { api: refusing, dates: refusalDates } = apiAnswering(async () =>
      response(503, { code: 'service_unavailable' }, { date, 'retry-after': '3' }),
    );
    await refusing.items('en');
    await refusing.chart('prf_1', { width: 640, theme: 'light' });
    expect(refusalDates).toEqual([date, date]);
    const { api: undated, dates: none } = apiAnswering(async () => response(200, assessmentBody));
    await undated.assessment();
    expect(none).toEqual([]);
  });

  it('sends every batch with keepalive, with a timeout signal unless leaving; a timeout is a network error (retried)', async () => {
    const { api, requests } = apiAnswering(() => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError')));
    const result = await api.submit('key-1', [{ item_id: 'mn_001', value: 4 }], false);
    const init = requests[0]!.init;
    expect(init.keepalive).toBe(true);
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(init.signal?.aborted).toBe(false);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('network_error');
      expect(isRetryable(result.error)).toBe(true);
    }
  });

  it.each(['scoring', 'completed'])(
    "passes through assessment_status %s of the 401 to a closed assessment's secret: finished",
    async (status) => {
      const problem = {
        title: 'Unauthenticated',
        status: 401,
        detail: `This client secret no longer works: its assessment is ${status}, no longer created or in_progress.`,
        code: 'unauthenticated',
        request_id: 'req_c',
        assessment_status: status,
      };
      const { api } = apiAnswering(async () => response(401, problem));
      const result = await api.assessment();
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error).toMatchObject({ code: 'unauthenticated', status: 401, assessment_status: status, request_id: 'req_c' });
      expect(closedOutcome(result.error)).toBe('finished');
    },
  );

  it.each(['abandoned', 'expired'])('turns the 401 of a %s assessment into assessment_not_open with a clear sentence', async (status) => {
    const problem = {
      title: 'Unauthenticated',
      status: 401,
      detail: 'no longer works',
      code: 'unauthenticated',
      request_id: 'req_d',
      assessment_status: status,
    };
    const { api } = apiAnswering(async () => response(401, problem));
    const result = await api.assessment();
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'assessment_not_open',
        status: 401,
        title: 'Assessment not open',
        detail: `This assessment is ${status} and no longer takes answers.`,
        request_id: 'req_d',
        retryAfterMs: null,
        assessment_status: status,
      },
    });
    if (!result.ok) {
      expect(closedOutcome(result.error)).toBe('not_open');
      expect(isRetryable(result.error)).toBe(false);
    }
  });

  it('a 401 without assessment_status (wrong secret, revoked key) is not about a closed assessment', async () => {
    const { api } = apiAnswering(async () => response(401, { status: 401, code: 'unauthenticated', detail: 'x', title: 't' }));
    const result = await api.assessment();
    expect(!result.ok && closedOutcome(result.error)).toBeNull();
    expect(!result.ok && 'assessment_status' in result.error).toBe(false);
  });

  it('reads the item bank in the language asked for: items in id order and the scale labels', async () => {
    const bank = {
      object: 'list',
      data: [
        { id: 'mn_002', object: 'item', text: 'Second' },
        { id: 'mn_001', object: 'item', text: 'First' },
      ],
      scale: { min: 1, max: 5, labels: [{ value: 1, label: 'Not at all like me' }] },
    };
    const { api, requests } = apiAnswering(async () => response(200, bank));
    const result = await api.items('en');
    expect(requests[0]?.url).toBe('https://api.example.com/v1/nature/items?language=en');
    expect(requests[0]?.init.headers).toEqual({ Authorization: 'Bearer test_pk_abc', 'Nature-Client-Secret': 'asm_1_secret_xyz' });
    expect(result).toEqual({
      ok: true,
      value: {
        items: [
          { id: 'mn_001', text: 'First' },
          { id: 'mn_002', text: 'Second' },
        ],
        labels: [{ value: 1, label: 'Not at all like me' }],
      },
    });
    await api.items('fr');
    expect(requests[1]?.url).toBe('https://api.example.com/v1/nature/items?language=fr');
  });

  it('turns a problem+json answer into its fields, with Retry-After in milliseconds', async () => {
    const problem = {
      type: 'https://nature.example.com/docs/errors#rate_limited',
      title: 'Too many requests',
      status: 429,
      detail: 'Slow down.',
      code: 'rate_limited',
      request_id: 'req_9',
    };
    const { api } = apiAnswering(async () => response(429, problem, { 'retry-after': '3' }));
    expect(await api.assessment()).toEqual({
      ok: false,
      error: {
        code: 'rate_limited',
        status: 429,
        title: 'Too many requests',
        detail: 'Slow down.',
        request_id: 'req_9',
        retryAfterMs: 3000,
      },
    });
  });

  it('keeps the scope a 403 names, which tells a key without it from a page on an origin the key does not allow', async () => {
    const { api } = apiAnswering(async () =>
      response(403, { status: 403, code: 'insufficient_scope', title: 't', detail: 'd', required_scope: 'nature:read' }),
    );
    const result = await api.items('en');
    expect(!result.ok && result.error).toMatchObject({ code: 'insufficient_scope', required_scope: 'nature:read' });
    const origin = apiAnswering(async () => response(403, { status: 403, code: 'insufficient_scope', title: 't', detail: 'd' }));
    const refused = await origin.api.items('en');
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).not.toHaveProperty('required_scope');
  });

  it('keeps the API detail of a revoked key (for nature:error; the element says it in its own words)', async () => {
    const problem = {
      title: 'Unauthenticated',
      status: 401,
      detail: 'This API key was revoked and no longer works.',
      code: 'unauthenticated',
      request_id: 'r',
    };
    const { api } = apiAnswering(async () => response(401, problem));
    const result = await api.items('en');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error).toMatchObject({ code: 'unauthenticated', status: 401, detail: 'This API key was revoked and no longer works.' });
  });

  it('answers a rejected fetch (offline, the API unreachable) as network_error with the human sentence', async () => {
    const { api } = apiAnswering(async () => {
      throw new TypeError('Failed to fetch');
    });
    const result = await api.submit('k', [{ item_id: 'mn_001', value: 1 }], false);
    expect(result).toEqual({
      ok: false,
      error: { code: 'network_error', status: null, title: 'Network error', detail: NETWORK_MESSAGE, request_id: null, retryAfterMs: null },
    });
  });

  it('falls back to the status and request-id header when the error body is not a problem', async () => {
    const { api } = apiAnswering(async () => response(502, '<html>bad gateway</html>', { 'request-id': 'req_h' }));
    const result = await api.assessment();
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'http_502',
        status: 502,
        title: 'HTTP 502',
        detail: 'The Nature Profile API answered 502.',
        request_id: 'req_h',
        retryAfterMs: null,
      },
    });
  });

  it('refuses a 200 whose body is not an assessment', async () => {
    const { api } = apiAnswering(async () => response(200, { hello: 'world' }));
    const result = await api.assessment();
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('unexpected_response');
  });
});

describe('when the embed retries', () => {
  it.each([
    [error(null, 'network_error'), true],
    [error(500, 'internal_error'), true],
    [error(503, 'http_503'), true],
    [error(429, 'rate_limited'), true],
    [error(409, 'idempotency_key_in_use'), true],
    [error(409, 'assessment_not_open'), false],
    [error(401, 'unauthenticated'), false],
    [error(403, 'insufficient_scope'), false],
    [error(404, 'not_found'), false],
    [error(422, 'idempotency_key_reused'), false],
    [error(422, 'validation_failed'), false],
    [error(null, 'unexpected_response'), false],
  ])('%o retryable: %s', (failure, expected) => {
    expect(isRetryable(failure)).toBe(expected);
  });

  it('waits Retry-After when given, else 1 s doubling up to 30 s, less up to 20 % at random', () => {
    expect(retryDelay(1, error(429, 'rate_limited', 12_000), () => 0.5)).toBe(12_000);
    expect([1, 2, 3, 4, 5, 6, 10].map((attempt) => retryDelay(attempt, error(null, 'network_error'), () => 0))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(retryDelay(2, error(null, 'network_error'), () => 1)).toBe(1600);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
    const now = Date.parse('2026-11-22T08:00:00Z');
    expect(parseRetryAfter('Sun, 22 Nov 2026 08:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 07:00:00 GMT', now)).toBe(0);
  });
});
