import { describe, expect, it } from 'vitest';
import { mintKey } from '../../src/domain/api-keys.js';
import { knownResponses } from '../support/known-answers.js';
import { expectProblem } from '../support/problems.js';
import { auth, logLength, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

const RETURN_ORIGIN = 'https://app.example.com';
const DAY_S = 86_400;

describe('hosted assessment links', () => {
  let t: TestApp;
  let sk: string;
  useTestApp((app, key) => {
    t = app;
    sk = key;
  });

  type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
  const call = (method: Method, url: string, options: { key?: string; secret?: string; payload?: object; idempotencyKey?: string } = {}) =>
    t.app.inject({
      method,
      url,
      headers: {
        ...auth(options.key ?? sk),
        ...(options.secret !== undefined && { 'nature-client-secret': options.secret }),
        ...(options.idempotencyKey !== undefined && { 'idempotency-key': options.idempotencyKey }),
      },
      ...(options.payload !== undefined && { payload: options.payload }),
    });
  /** A publishable key allowed on the caller's origin: what makes a return URL there acceptable. */
  const allowReturnOrigin = async () => {
    const { raw, record } = mintKey(
      { name: 'web', environment: 'test', type: 'pk', scopes: ['nature:read'], origins: [RETURN_ORIGIN] },
      new Date(),
    );
    await t.keys.insert(record);
    return raw;
  };
  const subject = async () => (await call('POST', '/v1/nature/subjects', { payload: validSubject() })).json().id as string;
  const create = async (subjectId: string, payload?: object) => {
    const response = await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`, payload === undefined ? {} : { payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  /** The page's path: the url's path on this server. */
  const pagePath = (url: string) => new URL(url).pathname;
  const open = (url: string) => t.app.inject({ method: 'GET', url: pagePath(url) + new URL(url).search });
  const tokenOf = (url: string) => pagePath(url).slice('/a/'.length);
  const attribute = (html: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(html)?.[1];

  it('creates a link with the defaults: 7 days, English, no return URL, the url shown once and only its hash kept', async () => {
    const subjectId = await subject();
    const link = await create(subjectId);
    expect(link).toMatchObject({
      object: 'assessment_link',
      subject_id: subjectId,
      status: 'active',
      language: 'en',
      result_visible_to_subject: false,
      return_url: null,
      assessment_id: null,
      livemode: false,
      opened_at: null,
      revoked_at: null,
    });
    expect(link.id).toMatch(/^lnk_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(7 * DAY_S * 1000);
    expect(link.url).toMatch(new RegExp(`^http://localhost/a/test_${link.id}_[0-9A-Za-z]{40}$`));
    const token = tokenOf(link.url);

    const again = await call('GET', `/v1/nature/assessment_links/${link.id}`);
    expect(again.statusCode).toBe(200);
    const { url: _once, ...shown } = link;
    expect(again.json()).toEqual(shown);
    const stored = JSON.stringify(await t.envs.test.readModels.get('assessment_links', link.id));
    expect(stored).not.toContain(token);
    const logged = JSON.stringify((await t.envs.test.events.readAll({ limit: 1_000_000 })).map((event) => event.data));
    expect(logged).not.toContain(token);
    await open(link.url);
    expect(t.logs.join('')).not.toContain(token);
    expect(t.logs.join('')).toContain(`test_${link.id}_[redacted]`);
  });

  it('takes the options: expiry, French, a return URL on an allowed origin, the result shown', async () => {
    await allowReturnOrigin();
    const link = await create(await subject(), {
      expires_in_seconds: 3 * DAY_S,
      language: 'fr',
      return_url: `${RETURN_ORIGIN}/done?ref=42`,
      result_visible_to_subject: true,
    });
    expect(link).toMatchObject({ language: 'fr', return_url: `${RETURN_ORIGIN}/done?ref=42`, result_visible_to_subject: true });
    expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(3 * DAY_S * 1000);
    // The return URL may name the person: sealed at rest.
    expect(JSON.stringify(await t.envs.test.readModels.get('assessment_links', link.id))).not.toContain('done?ref=42');
  });

  it('refuses a publishable key (403), as every sk-only route does', async () => {
    const pk = await allowReturnOrigin();
    expectProblem(await call('POST', `/v1/nature/subjects/${await subject()}/assessment_links`, { key: pk }), 403, 'insufficient_scope');
  });

  it('refuses a return URL that is not https, or not on an origin of a publishable key (422, nothing appended)', async () => {
    await allowReturnOrigin();
    const subjectId = await subject();
    const before = await logLength(t.envs, 'test');
    for (const [return_url, says] of [
      ['http://app.example.com/done', 'absolute https://'],
      ['not a url', 'absolute https://'],
      ['https://user:pw@app.example.com/', 'without user name'],
      ['https://evil.example.net/done', `(${RETURN_ORIGIN}); https://evil.example.net is not`],
    ] as const) {
      const body = expectProblem(
        await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`, { payload: { return_url } }),
        422,
        'validation_failed',
      );
      expect(body.errors).toEqual([{ path: '/return_url', in: 'body', message: expect.stringContaining(says) }]);
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('refuses an expiry out of 5 minutes..30 days or not whole seconds, and unknown fields (422)', async () => {
    const subjectId = await subject();
    for (const expires_in_seconds of [299, 30 * DAY_S + 1, 600.5]) {
      const body = expectProblem(
        await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`, { payload: { expires_in_seconds } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toBe('/expires_in_seconds');
    }
    expectProblem(
      await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`, { payload: { expires_at: '2030-01-01T00:00:00Z' } }),
      422,
      'validation_failed',
    );
  });

  it('answers 404 for an unknown subject or link, and 410 once the subject is erased', async () => {
    expectProblem(await call('POST', '/v1/nature/subjects/sub_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ/assessment_links'), 404, 'not_found');
    expectProblem(await call('GET', '/v1/nature/assessment_links/lnk_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ'), 404, 'not_found');
    expectProblem(await call('POST', '/v1/nature/assessment_links/lnk_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ/revoke'), 404, 'not_found');
    const subjectId = await subject();
    const link = await create(subjectId);
    expect((await open(link.url)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/nature/subjects/${subjectId}`)).statusCode).toBe(200);
    expectProblem(await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`), 410, 'subject_erased');
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}/assessment_links`), 410, 'subject_erased');
    expectProblem(await call('GET', `/v1/nature/assessment_links/${link.id}`), 410, 'subject_erased');
    // Erasure revoked it: the page says so, the token calls nothing, and the read model keeps nothing personal.
    const page = await open(link.url);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This link is no longer valid');
    expect(page.body).not.toContain('<nature-assessment');
    expectProblem(await call('GET', '/v1/nature/items', { key: tokenOf(link.url) }), 401, 'unauthenticated');
    expect(Object.keys((await t.envs.test.readModels.get('assessment_links', link.id))!).sort()).toEqual(
      ['created_at', 'erased', 'expires_at', 'id', 'subject_id'].sort(),
    );
  });

  it('opening starts the assessment once: two openings, even at once, resume one assessment through its client secret', async () => {
    const subjectId = await subject();
    const link = await create(subjectId, { language: 'fr' });
    const [first, second] = await Promise.all([open(link.url), open(link.url)]);
    expect([first!.statusCode, second!.statusCode]).toEqual([200, 200]);
    // A mailing tool's own parameters change nothing.
    const third = await open(`${link.url}?utm_source=mail&utm_medium=email`);
    const assessments = (await call('GET', `/v1/nature/subjects/${subjectId}/assessments`)).json().data;
    expect(assessments).toHaveLength(1);
    expect(assessments[0]).toMatchObject({ language: 'fr', status: 'created' });
    for (const page of [first!, second!, third]) {
      expect(attribute(page.body, 'assessment-id')).toBe(assessments[0].id);
      expect(attribute(page.body, 'client-secret')).toBe(attribute(first!.body, 'client-secret'));
    }
    expect(third.body).toContain('<html lang="fr">');
    expect(third.body).toContain('name="viewport"');
    expect(third.headers['cache-control']).toBe('no-store');
    expect(third.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'sha256-/);
    expect((await call('GET', `/v1/nature/assessment_links/${link.id}`)).json()).toMatchObject({
      status: 'opened',
      assessment_id: assessments[0].id,
    });

    // The page's credentials: the link's token and the client secret act on this one assessment, nothing else.
    const token = attribute(third.body, 'publishable-key')!;
    const secret = attribute(third.body, 'client-secret')!;
    const assessmentUrl = `/v1/nature/subjects/${subjectId}/assessments/${assessments[0].id}`;
    expect((await call('GET', assessmentUrl, { key: token, secret })).statusCode).toBe(200);
    expect((await call('GET', '/v1/nature/items?language=fr', { key: token })).statusCode).toBe(200);
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}`, { key: token }), 403, 'insufficient_scope');
    const other = (await call('POST', `/v1/nature/subjects/${await subject()}/assessments`)).json();
    expectProblem(
      await call('GET', `/v1/nature/subjects/${other.subject_id}/assessments/${other.id}`, { key: token, secret: other.client_secret }),
      401,
      'unauthenticated',
    );
  });

  it('answered through the page to the end: completed, the return link offered, the page showing the ending', async () => {
    await allowReturnOrigin();
    const subjectId = await subject();
    const link = await create(subjectId, { return_url: `${RETURN_ORIGIN}/done` });
    const page = (await open(link.url)).body;
    expect(page).toContain(`<p class="return" id="return" hidden><a href="${RETURN_ORIGIN}/done">`);
    const token = attribute(page, 'publishable-key')!;
    const secret = attribute(page, 'client-secret')!;
    const url = `/v1/nature/subjects/${subjectId}/assessments/${attribute(page, 'assessment-id')}`;
    expect((await call('PATCH', url, { key: token, secret, payload: { responses: knownResponses } })).statusCode).toBe(200);
    expect((await call('GET', `/v1/nature/assessment_links/${link.id}`)).json().status).toBe('completed');
    const after = await open(link.url);
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain(`<p class="return" id="return"><a href="${RETURN_ORIGIN}/done">`);
    expect((await call('GET', `/v1/nature/subjects/${subjectId}/assessments`)).json().data).toHaveLength(1);
  });

  it('a subject with an assessment already open: the page says so and starts nothing (409)', async () => {
    const subjectId = await subject();
    const link = await create(subjectId);
    expect((await call('POST', `/v1/nature/subjects/${subjectId}/assessments`)).statusCode).toBe(201);
    const page = await open(link.url);
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('You already have an assessment under way');
    expect((await call('GET', `/v1/nature/assessment_links/${link.id}`)).json()).toMatchObject({ status: 'active', assessment_id: null });
  });

  it('revokes a link (idempotently): its page says it is no longer valid and its token calls nothing', async () => {
    const subjectId = await subject();
    const link = await create(subjectId);
    const opened = await open(link.url);
    const revoked = await call('POST', `/v1/nature/assessment_links/${link.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    const again = await call('POST', `/v1/nature/assessment_links/${link.id}/revoke`);
    expect(again.json().revoked_at).toBe(revoked.json().revoked_at);
    const page = await open(link.url);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This link is no longer valid');
    expect(page.body).not.toContain('<nature-assessment');
    const url = `/v1/nature/subjects/${subjectId}/assessments/${attribute(opened.body, 'assessment-id')}`;
    expectProblem(
      await call('GET', url, { key: tokenOf(link.url), secret: attribute(opened.body, 'client-secret')! }),
      401,
      'unauthenticated',
    );
  });

  it('a HEAD of the page (a link checker) starts nothing', async () => {
    const subjectId = await subject();
    const link = await create(subjectId);
    expect((await t.app.inject({ method: 'HEAD', url: pagePath(link.url) })).statusCode).toBe(405);
    expect((await call('GET', `/v1/nature/subjects/${subjectId}/assessments`)).json().data).toHaveLength(0);
  });

  it('an unknown or altered token: a page saying the link is not valid (404)', async () => {
    const link = await create(await subject());
    for (const path of ['/a/nonsense', `${pagePath(link.url).slice(0, -1)}${link.url.endsWith('A') ? 'B' : 'A'}`]) {
      const page = await t.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(404);
      expect(page.body).toContain('This link is not valid');
    }
  });

  it('creates once per Idempotency-Key: the same link and url, replayed', async () => {
    const subjectId = await subject();
    const first = await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`, { idempotencyKey: 'link-once', payload: {} });
    const second = await call('POST', `/v1/nature/subjects/${subjectId}/assessment_links`, { idempotencyKey: 'link-once', payload: {} });
    expect(first.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect((await call('GET', `/v1/nature/subjects/${subjectId}/assessment_links`)).json().data).toHaveLength(1);
  });

  it('lists a subject’s links newest first, a page at a time', async () => {
    const subjectId = await subject();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create(subjectId)).id);
    const page = (await call('GET', `/v1/nature/subjects/${subjectId}/assessment_links?limit=2`)).json();
    expect(page).toMatchObject({ object: 'list', has_more: true });
    expect(page.data.map((link: { id: string }) => link.id)).toEqual([ids[2], ids[1]]);
    expect(page.data[0]).not.toHaveProperty('url');
    const next = (await call('GET', `/v1/nature/subjects/${subjectId}/assessment_links?limit=2&starting_after=${ids[1]}`)).json();
    expect(next).toMatchObject({ has_more: false, data: [{ id: ids[0] }] });
    expectProblem(
      await call('GET', `/v1/nature/subjects/${await subject()}/assessment_links?starting_after=${ids[0]}`),
      400,
      'invalid_cursor',
    );
  });

  // Last: it moves the app's clock.
  it('a link not opened before it expires: expired, its page says so and starts nothing', async () => {
    const subjectId = await subject();
    const link = await create(subjectId, { expires_in_seconds: 300 });
    t.advance(300_000);
    expect((await call('GET', `/v1/nature/assessment_links/${link.id}`)).json().status).toBe('expired');
    const page = await open(link.url);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This link has expired');
    expect((await call('GET', `/v1/nature/subjects/${subjectId}/assessments`)).json().data).toHaveLength(0);
  });
});
