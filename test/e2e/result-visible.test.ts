import { describe, expect, it } from 'vitest';
import { RESULT_VISIBLE_MS } from '../../src/domain/assessment.js';
import { batches } from '../support/known-answers.js';
import { expectProblem } from '../support/problems.js';
import { auth, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('result_visible_to_subject: the person may see their result, when the caller says so', () => {
  let t: TestApp;
  let sk: string;
  useTestApp((app, key) => {
    t = app;
    sk = key;
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, options: { key: string; secret?: string; payload?: object }) =>
    t.app.inject({
      method,
      url,
      headers: { ...auth(options.key), ...(options.secret !== undefined && { 'nature-client-secret': options.secret }) },
      ...(options.payload !== undefined && { payload: options.payload }),
    });
  const pk = async () => (await t.mint('test', 'pk', ['nature:read'])).raw;

  /** An assessment started by the caller's server (with `start` as its body), answered to the end through the page's pk key. */
  async function completed(start?: object) {
    const subjectId = (await call('POST', '/v1/nature/subjects', { key: sk, payload: validSubject() })).json().id as string;
    const started = await call('POST', `/v1/nature/subjects/${subjectId}/assessments`, { key: sk, ...(start && { payload: start }) });
    expect(started.statusCode).toBe(201);
    const { id, client_secret } = started.json();
    const url = `/v1/nature/subjects/${subjectId}/assessments/${id}`;
    const key = await pk();
    for (const responses of batches(4))
      expect((await call('PATCH', url, { key, secret: client_secret, payload: { responses } })).statusCode).toBe(200);
    const profileId = (await call('GET', url, { key: sk })).json().profile_id as string;
    return { key, secret: client_secret as string, url, subjectId, profileId, started: started.json() };
  }

  it('is false unless the start says true, and the assessment shows it', async () => {
    const subjectId = (await call('POST', '/v1/nature/subjects', { key: sk, payload: validSubject() })).json().id as string;
    const plain = await call('POST', `/v1/nature/subjects/${subjectId}/assessments`, { key: sk });
    expect(plain.json().result_visible_to_subject).toBe(false);
    const { started } = await completed({ result_visible_to_subject: true });
    expect(started.result_visible_to_subject).toBe(true);
    const wrong = await call('POST', `/v1/nature/subjects/${started.subject_id}/assessments`, {
      key: sk,
      payload: { result_visible_to_subject: 'yes' },
    });
    expectProblem(wrong, 422, 'validation_failed');
  });

  it("with it, the secret reads the assessment's profile and chart for a day, as the subject's latest and by id, then no more", async () => {
    const { key, secret, url, subjectId, profileId } = await completed({ result_visible_to_subject: true });
    // The contract: reading the profile is the secret's only use once the assessment is completed.
    expect((await call('GET', url, { key, secret })).json()).toMatchObject({ code: 'unauthenticated', assessment_status: 'completed' });
    const expected = (await call('GET', `/v1/nature/profiles/${profileId}`, { key: sk })).json();
    const latest = await call('GET', `/v1/nature/subjects/${subjectId}/profile`, { key, secret });
    expect(latest.statusCode).toBe(200);
    expect(latest.json()).toEqual(expected);
    const profile = await call('GET', `/v1/nature/profiles/${profileId}`, { key, secret });
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toEqual(expected);
    const chart = await call('GET', `/v1/nature/profiles/${profileId}/chart.svg?theme=dark&width=360`, { key, secret });
    expect(chart.statusCode).toBe(200);
    expect(chart.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(chart.body).toBe((await call('GET', `/v1/nature/profiles/${profileId}/chart.svg?theme=dark&width=360`, { key: sk })).body);
    // Reading is all it does: the assessment takes no more answers.
    expectProblem(await call('PATCH', url, { key, secret, payload: { responses: batches(1)[0] } }), 401, 'unauthenticated');

    t.advance(RESULT_VISIBLE_MS + 1000);
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}/profile`, { key, secret }), 401, 'unauthenticated');
    expectProblem(await call('GET', `/v1/nature/profiles/${profileId}`, { key, secret }), 401, 'unauthenticated');
    expectProblem(await call('GET', `/v1/nature/profiles/${profileId}/chart.svg`, { key, secret }), 401, 'unauthenticated');
    expect((await call('GET', url, { key, secret })).json()).toMatchObject({ code: 'unauthenticated', assessment_status: 'completed' });
  });

  it('without it, a completed assessment’s secret reads nothing: not the assessment, not the profile', async () => {
    const { key, secret, url, subjectId, profileId } = await completed();
    expect((await call('GET', url, { key, secret })).json()).toMatchObject({ code: 'unauthenticated', assessment_status: 'completed' });
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}/profile`, { key, secret }), 401, 'unauthenticated');
    expectProblem(await call('GET', `/v1/nature/profiles/${profileId}`, { key, secret }), 401, 'unauthenticated');
    expectProblem(await call('GET', `/v1/nature/profiles/${profileId}/chart.svg`, { key, secret }), 401, 'unauthenticated');
  });

  it("reads that assessment's profile only: another profile, no secret or a made-up one are refused alike", async () => {
    const one = await completed({ result_visible_to_subject: true });
    const other = await completed({ result_visible_to_subject: true });
    expectProblem(
      await call('GET', `/v1/nature/profiles/${other.profileId}`, { key: one.key, secret: one.secret }),
      401,
      'unauthenticated',
    );
    expectProblem(await call('GET', `/v1/nature/profiles/${one.profileId}`, { key: one.key }), 403, 'insufficient_scope');
    const forged = `${one.secret.slice(0, -4)}AAAA`;
    expectProblem(await call('GET', `/v1/nature/profiles/${one.profileId}`, { key: one.key, secret: forged }), 401, 'unauthenticated');
    expectProblem(
      await call('GET', `/v1/nature/profiles/${one.profileId}`, { key: one.key, secret: 'not-a-secret' }),
      401,
      'unauthenticated',
    );
    // The subject's latest profile only while it is this assessment's: once a newer one is completed, no more.
    expect((await call('GET', `/v1/nature/subjects/${one.subjectId}/profile`, { key: one.key, secret: one.secret })).statusCode).toBe(200);
    const next = (await call('POST', `/v1/nature/subjects/${one.subjectId}/assessments`, { key: sk })).json().id as string;
    for (const responses of batches(4))
      await call('PATCH', `/v1/nature/subjects/${one.subjectId}/assessments/${next}`, { key: sk, payload: { responses } });
    const refused = await call('GET', `/v1/nature/subjects/${one.subjectId}/profile`, { key: one.key, secret: one.secret });
    expectProblem(refused, 401, 'unauthenticated');
    // Another subject's latest profile, with this secret: refused alike.
    const elsewhere = await call('GET', `/v1/nature/subjects/${other.subjectId}/profile`, { key: one.key, secret: one.secret });
    expectProblem(elsewhere, 401, 'unauthenticated');
  });

  it('answers a browser from another page: CORS on the profile route, for the origins the key allows', async () => {
    const { key, secret, profileId } = await completed({ result_visible_to_subject: true });
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: `/v1/nature/profiles/${profileId}`,
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization,nature-client-secret',
      },
    });
    expect(preflight.statusCode).toBe(204);
    const read = await t.app.inject({
      method: 'GET',
      url: `/v1/nature/profiles/${profileId}`,
      headers: { ...auth(key), 'nature-client-secret': secret, origin: 'https://app.example.com' },
    });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });
});
