import { describe, expect, it } from 'vitest';
import { hashKey } from '../../src/domain/api-keys.js';
import { assessmentStream } from '../../src/domain/assessment.js';
import { eventually } from '../support/eventually.js';
import { batches, knownProfile, knownResponses } from '../support/known-answers.js';
import { expectProblem } from '../support/problems.js';
import { auth, logLength, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('client secrets: a browser answers one assessment with a pk key', () => {
  let t: TestApp;
  let sk: string;
  useTestApp((app, key) => {
    t = app;
    sk = key;
  });

  type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
  const call = (method: Method, url: string, options: { key: string; secret?: string; payload?: object; idempotencyKey?: string }) =>
    t.app.inject({
      method,
      url,
      headers: {
        ...auth(options.key),
        ...(options.secret !== undefined && { 'nature-client-secret': options.secret }),
        ...(options.idempotencyKey !== undefined && { 'idempotency-key': options.idempotencyKey }),
      },
      ...(options.payload !== undefined && { payload: options.payload }),
    });
  const pk = async (environment: 'test' | 'live' = 'test') => (await t.mint(environment, 'pk', ['nature:read'])).raw;
  /** A subject and an assessment started by the caller's server, with the secret it hands to its page. */
  const started = async () => {
    const subjectId = (await call('POST', '/v1/nature/subjects', { key: sk, payload: validSubject() })).json().id as string;
    const response = await call('POST', `/v1/nature/subjects/${subjectId}/assessments`, { key: sk });
    expect(response.statusCode).toBe(201);
    const { id, client_secret } = response.json();
    return {
      subjectId,
      assessmentId: id as string,
      secret: client_secret as string,
      url: `/v1/nature/subjects/${subjectId}/assessments/${id}`,
    };
  };

  it('shows the secret to the sk key once, at start, and keeps only its hash (never in a log line)', async () => {
    const { assessmentId, secret, url } = await started();
    expect(secret).toMatch(new RegExp(`^${assessmentId}_secret_[0-9A-Za-z]{40}$`));
    const again = await call('GET', url, { key: sk });
    expect(again.statusCode).toBe(200);
    expect(again.json()).not.toHaveProperty('client_secret');
    expect(again.body).not.toContain(hashKey(secret));

    const { events } = await t.envs.test.events.readStream(assessmentStream(assessmentId));
    expect(events[0]!.data).toMatchObject({ client_secret_hash: hashKey(secret) });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(secret);
    await call('GET', url, { key: await pk(), secret });
    expect(t.logs.join('')).not.toContain(secret);
  });

  it('answers the whole assessment through pk + secret: scored once, the profile visible to the sk key', async () => {
    const key = await pk();
    const { subjectId, assessmentId, secret, url } = await started();
    const bank = await call('GET', '/v1/nature/items', { key, secret });
    expect(bank.statusCode).toBe(200);
    expect(bank.json().data).toHaveLength(76);

    const opened = await call('GET', url, { key, secret });
    expect(opened.statusCode).toBe(200);
    expect(opened.json()).toMatchObject({
      id: assessmentId,
      status: 'created',
      responses_received: 0,
      unanswered_item_ids: knownResponses.map((r) => r.item_id),
    });
    expect(opened.json()).not.toHaveProperty('client_secret');

    const [first, second, third, fourth] = batches(4);
    for (const [index, responses] of [first!, second!, third!].entries()) {
      const answer = await call('PATCH', url, { key, secret, payload: { responses }, idempotencyKey: `batch-${assessmentId}-${index}` });
      expect(answer.statusCode).toBe(200);
      expect(answer.json().responses_received).toBe(19 * (index + 1));
    }
    // A network retry of a batch is replayed, byte for byte.
    const retried = await call('PATCH', url, { key, secret, payload: { responses: third! }, idempotencyKey: `batch-${assessmentId}-2` });
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json().responses_received).toBe(57);
    // All or nothing: a batch with one bad answer stores none of it.
    const bad = await call('PATCH', url, { key, secret, payload: { responses: [{ ...fourth![0]! }, { item_id: 'mn_999', value: 3 }] } });
    expectProblem(bad, 422, 'validation_failed');
    expect((await call('GET', url, { key, secret })).json().responses_received).toBe(57);

    const last = await call('PATCH', url, { key, secret, payload: { responses: fourth! }, idempotencyKey: `batch-${assessmentId}-3` });
    expect(last.statusCode).toBe(200);
    expect(last.json()).toMatchObject({ status: 'scoring', responses_received: 76 });
    // The browser lost the answer to the closing batch and retries it: the stored answer, though the secret now refuses anything new.
    const lastRetried = await call('PATCH', url, {
      key,
      secret,
      payload: { responses: fourth! },
      idempotencyKey: `batch-${assessmentId}-3`,
    });
    expect(lastRetried.headers['idempotent-replayed']).toBe('true');
    expect(lastRetried.body).toBe(last.body);

    const profile = await eventually(async () => {
      const response = await call('GET', `/v1/nature/subjects/${subjectId}/profile`, { key: sk });
      return response.statusCode === 200 ? response.json() : undefined;
    });
    expect(profile).toMatchObject({ subject_id: subjectId, assessment_id: assessmentId, natures: knownProfile.natures });
    const { events } = await t.envs.test.events.readStream(assessmentStream(assessmentId));
    expect(events.filter((e) => e.type === 'ScoringCompleted')).toHaveLength(1);
    // The batches are on record as the pk key's.
    expect(events[1]!.metadata).toMatchObject({ key_id: expect.stringMatching(/^key_/) });

    // Completed: the secret no longer works, for reading or answering; it tells its holder what became of the assessment.
    const reopened = await call('GET', url, { key, secret });
    expectProblem(reopened, 401, 'unauthenticated');
    expect(reopened.json().assessment_status).toMatch(/^(scoring|completed)$/);
    // The closing batch's key with another body: still the closed secret's 401, not a hint about the key.
    expectProblem(
      await call('PATCH', url, { key, secret, payload: { responses: first! }, idempotencyKey: `batch-${assessmentId}-3` }),
      401,
      'unauthenticated',
    );
    expectProblem(await call('PATCH', url, { key, secret, payload: { responses: first! } }), 401, 'unauthenticated');
    expectProblem(
      await call('PATCH', url, { key, secret, payload: { responses: first! }, idempotencyKey: `late-${assessmentId}` }),
      401,
      'unauthenticated',
    );
    // That refusal stored nothing: the key is free for the sk key's own request.
    expectProblem(
      await call('PATCH', url, { key: sk, payload: { responses: first! }, idempotencyKey: `late-${assessmentId}` }),
      409,
      'assessment_not_open',
    );
  });

  it('refuses the pk key everything else, secret or not: 403 insufficient_scope', async () => {
    const key = await pk();
    const { subjectId, secret, url } = await started();
    const before = await logLength(t.envs, 'test');
    expectProblem(await call('GET', url, { key }), 403, 'insufficient_scope');
    expectProblem(await call('PATCH', url, { key, payload: { responses: [knownResponses[0]!] } }), 403, 'insufficient_scope');
    expectProblem(await call('DELETE', url, { key, secret }), 403, 'insufficient_scope');
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}`, { key, secret }), 403, 'insufficient_scope');
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}/assessments`, { key, secret }), 403, 'insufficient_scope');
    expectProblem(await call('POST', `/v1/nature/subjects/${subjectId}/assessments`, { key, secret }), 403, 'insufficient_scope');
    // The latest profile opens to the secret of a completed, result-visible assessment only: this one is neither.
    expectProblem(await call('GET', `/v1/nature/subjects/${subjectId}/profile`, { key, secret }), 401, 'unauthenticated');
    expectProblem(await call('GET', '/v1/nature/subjects', { key, secret }), 403, 'insufficient_scope');
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it("answers 401 unauthenticated to a wrong secret, another assessment's, one of the other environment, and a closed assessment's", async () => {
    const key = await pk();
    const mine = await started();
    const other = await started();
    const answer = { responses: [knownResponses[0]!] };
    for (const secret of [`${mine.assessmentId}_secret_${'A'.repeat(40)}`, other.secret, 'not-a-secret', mine.secret.toUpperCase()]) {
      expectProblem(await call('GET', mine.url, { key, secret }), 401, 'unauthenticated');
      expectProblem(await call('PATCH', mine.url, { key, secret, payload: answer }), 401, 'unauthenticated');
    }
    // The secret names its assessment: it opens no other URL, not even the same assessment under another subject.
    expectProblem(await call('GET', other.url, { key, secret: mine.secret }), 401, 'unauthenticated');
    expectProblem(
      await call('GET', `/v1/nature/subjects/${other.subjectId}/assessments/${mine.assessmentId}`, { key, secret: mine.secret }),
      401,
      'unauthenticated',
    );
    // A live pk key sees nothing of the sandbox.
    expectProblem(await call('GET', mine.url, { key: await pk('live'), secret: mine.secret }), 401, 'unauthenticated');
    expect((await call('GET', mine.url, { key, secret: mine.secret })).statusCode).toBe(200);

    // Abandoned by the caller's server: closed.
    expect((await call('DELETE', other.url, { key: sk })).statusCode).toBe(200);
    const abandoned = await call('PATCH', other.url, { key, secret: other.secret, payload: answer });
    expectProblem(abandoned, 401, 'unauthenticated');
    expect(abandoned.json().assessment_status).toBe('abandoned');
    // Whatever else the request gets wrong, a closed secret hears the same 401: a bad body, a malformed or a new key.
    for (const [payload, idempotencyKey] of [
      [{ responses: [{ item_id: 'mn_999', value: 9 }] }, 'new-key'],
      [answer, 'not a key'],
      [answer, 'another-new-key'],
    ] as const) {
      expectProblem(await call('PATCH', other.url, { key, secret: other.secret, payload, idempotencyKey }), 401, 'unauthenticated');
    }
    // Only a secret that opened the assessment learns its status.
    expect((await call('GET', other.url, { key, secret: mine.secret })).json()).not.toHaveProperty('assessment_status');
  });

  it("keeps a browser's Idempotency-Keys apart from the caller's server's and from other pages'", async () => {
    const key = await pk();
    const mine = await started();
    const other = await started();
    // A page that knows (or guesses) a key the caller's server will use cannot take it in advance.
    const taken = `create-subject-${mine.assessmentId}`;
    expect(
      (await call('PATCH', mine.url, { key, secret: mine.secret, payload: { responses: [knownResponses[0]!] }, idempotencyKey: taken }))
        .statusCode,
    ).toBe(200);
    const created = await call('POST', '/v1/nature/subjects', { key: sk, payload: validSubject(), idempotencyKey: taken });
    expect(created.statusCode).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
    // Nor can one page's key block another page's batch.
    const answered = await call('PATCH', other.url, {
      key,
      secret: other.secret,
      payload: { responses: [knownResponses[1]!] },
      idempotencyKey: taken,
    });
    expect(answered.statusCode).toBe(200);
    expect(answered.json()).toMatchObject({ id: other.assessmentId, responses_received: 1 });
    // Within one page, a retry is still a replay.
    const retried = await call('PATCH', mine.url, {
      key,
      secret: mine.secret,
      payload: { responses: [knownResponses[0]!] },
      idempotencyKey: taken,
    });
    expect(retried.headers['idempotent-replayed']).toBe('true');
  });

  it('stops the secret once the assessment expires (7 days)', async () => {
    const key = await pk();
    const { secret, url } = await started();
    expect((await call('PATCH', url, { key, secret, payload: { responses: [knownResponses[0]!] } })).statusCode).toBe(200);
    t.advance(7 * 24 * 60 * 60 * 1000 + 1000);
    const expired = await call('GET', url, { key, secret });
    expectProblem(expired, 401, 'unauthenticated');
    expect(expired.json().assessment_status).toBe('expired');
    expect((await call('GET', url, { key: sk })).json().status).toBe('expired');
  });
});
