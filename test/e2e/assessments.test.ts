import { beforeAll, describe, expect, it } from 'vitest';
import { assessmentStream } from '../../src/domain/assessment.js';
import { eventually } from '../support/eventually.js';
import { batches, knownProfile, knownResponses } from '../support/known-answers.js';
import { auth, logLength, openTestApp, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('assessments, scoring and profiles', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });

  type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
  const call = (method: Method, url: string, payload?: unknown, raw = key) =>
    t.app.inject({ method, url, headers: auth(raw), ...(payload !== undefined && { payload: payload as object }) });
  const newSubject = async () => (await call('POST', '/v1/nature/subjects', validSubject())).json().id as string;
  const start = async (subjectId: string, body?: unknown) => call('POST', `/v1/nature/subjects/${subjectId}/assessments`, body);
  const patch = (subjectId: string, assessmentId: string, responses: unknown) =>
    call('PATCH', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`, { responses });
  // Response bodies are checked field by field; their static type adds nothing.
  type Body = Record<string, any>;
  const profileOf = (subjectId: string) =>
    eventually<Body>(async () => {
      const response = await call('GET', `/v1/nature/subjects/${subjectId}/profile`);
      return response.statusCode === 200 ? response.json() : undefined;
    });

  describe('item bank', () => {
    it('lists the 76 items in id order with the scale, never the constructs; a pk key may read it', async () => {
      const pk = (await t.mint('live', 'pk', ['nature:read'])).raw;
      const response = await call('GET', '/v1/nature/items', undefined, pk);
      expect(response.statusCode).toBe(200);
      const bank = response.json();
      expect(bank).toMatchObject({
        object: 'list',
        has_more: false,
        item_set_version: 'mn76-items-v1',
        language: 'en',
        scale: { min: 1, max: 5 },
      });
      expect(bank.data).toHaveLength(76);
      expect(bank.data[0]).toEqual({ id: 'mn_001', object: 'item', text: expect.stringMatching(/^I /) });
      expect(bank.data.map((item: { id: string }) => item.id)).toEqual(knownResponses.map((r) => r.item_id));
      expect(bank.scale.labels[0]).toEqual({ value: 1, label: 'Not at all like me' });
      expect(response.body).not.toMatch(/construct|creative|logical|musical/);
    });

    it('refuses a pk key everything else on assessments', async () => {
      const pk = (await t.mint('test', 'pk')).raw;
      const subjectId = await newSubject();
      expect((await call('POST', `/v1/nature/subjects/${subjectId}/assessments`, {}, pk)).json().code).toBe('insufficient_scope');
      expect((await call('GET', `/v1/nature/subjects/${subjectId}/profile`, undefined, pk)).statusCode).toBe(403);
    });
  });

  it('runs end to end: start, 4 batches of 19, the exact profile, by subject and by id', async () => {
    const subjectId = await newSubject();
    const started = await start(subjectId, { language: 'en' });
    expect(started.statusCode).toBe(201);
    const assessment = started.json();
    expect(assessment).toEqual({
      id: expect.stringMatching(/^asm_[0-9A-Z]{26}$/),
      object: 'assessment',
      subject_id: subjectId,
      client_secret: expect.stringMatching(/^asm_[0-9A-Z]{26}_secret_[0-9A-Za-z]{40}$/),
      status: 'created',
      language: 'en',
      requested_language: 'en',
      item_set_version: 'mn76-items-v1',
      responses_received: 0,
      responses_required: 76,
      unanswered_item_ids: knownResponses.map((r) => r.item_id),
      profile_id: null,
      result_visible_to_subject: false,
      livemode: false,
      created_at: expect.any(String),
      updated_at: assessment.created_at,
      completed_at: null,
      expires_at: new Date(Date.parse(assessment.created_at) + 7 * 24 * 3600 * 1000).toISOString(),
    });

    const statuses: string[] = [];
    for (const [i, batch] of batches(4).entries()) {
      const response = await patch(subjectId, assessment.id, batch);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.responses_received).toBe(19 * (i + 1));
      expect(body.unanswered_item_ids).toHaveLength(76 - 19 * (i + 1));
      statuses.push(body.status);
    }
    expect(statuses).toEqual(['in_progress', 'in_progress', 'in_progress', 'scoring']);

    const profile = await profileOf(subjectId);
    expect(profile).toEqual({
      id: expect.stringMatching(/^prf_[0-9A-Z]{26}$/),
      object: 'profile',
      subject_id: subjectId,
      assessment_id: assessment.id,
      ...knownProfile,
      quality: expect.objectContaining({ version: 'quality-v2', flagged: false, reasons: [] }),
      status: 'current',
      superseded_by: null,
      livemode: false,
      created_at: expect.any(String),
    });
    expect(Object.keys(profile.natures)).toEqual(Object.keys(knownProfile.natures));
    expect((await call('GET', `/v1/nature/profiles/${profile.id}`)).json()).toEqual(profile);
    const done = (await call('GET', `/v1/nature/subjects/${subjectId}/assessments/${assessment.id}`)).json();
    expect(done).toMatchObject({ status: 'completed', profile_id: profile.id, completed_at: profile.created_at, responses_received: 76 });

    const { events } = await t.envs.test.events.readStream(assessmentStream(assessment.id));
    expect(events.map((e) => e.type)).toEqual(['AssessmentStarted', ...Array(4).fill('ResponsesSubmitted'), 'ScoringCompleted']);
    expect(events[1]!.metadata).toMatchObject({ request_id: expect.stringMatching(/^req_/), key_id: expect.stringMatching(/^key_/) });
  });

  it('answers 404 profile_not_found before an assessment completes, and for an unknown profile id', async () => {
    const subjectId = await newSubject();
    await start(subjectId);
    const before = await call('GET', `/v1/nature/subjects/${subjectId}/profile`);
    expect(before.statusCode).toBe(404);
    expect(before.json().code).toBe('profile_not_found');
    expect((await call('GET', '/v1/nature/profiles/prf_01M00000000000000000000000')).json().code).toBe('profile_not_found');
    expect((await call('GET', '/v1/nature/subjects/sub_01M00000000000000000000000/profile')).json().code).toBe('not_found');
  });

  it('serves the latest completed profile after a second assessment', async () => {
    const subjectId = await newSubject();
    const first = (await start(subjectId)).json().id;
    await patch(subjectId, first, knownResponses);
    const firstProfile = await profileOf(subjectId);
    const second = (await start(subjectId)).json().id;
    await patch(
      subjectId,
      second,
      knownResponses.map((r) => ({ ...r, value: 5 })),
    );
    const latest = await eventually<Body>(async () => {
      const body = (await call('GET', `/v1/nature/subjects/${subjectId}/profile`)).json();
      return body.assessment_id === second ? body : undefined;
    });
    expect(latest.id).not.toBe(firstProfile.id);
    expect(Object.values(latest.natures)).toEqual(Array(9).fill(1));
    const list = (await call('GET', `/v1/nature/subjects/${subjectId}/assessments`)).json();
    expect(list.data.map((a: { id: string }) => a.id)).toEqual([second, first]);
  });

  describe('starting', () => {
    it('answers 409 assessment_in_progress while one is open, naming it; and stores nothing', async () => {
      const subjectId = await newSubject();
      const open = (await start(subjectId)).json();
      const before = await logLength(t.envs, 'test');
      const again = await start(subjectId);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'assessment_in_progress', assessment_id: open.id });
      expect(await logLength(t.envs, 'test')).toBe(before);
    });

    it('starts another once the open one is abandoned', async () => {
      const subjectId = await newSubject();
      const open = (await start(subjectId)).json();
      const abandoned = await call('DELETE', `/v1/nature/subjects/${subjectId}/assessments/${open.id}`);
      expect(abandoned.statusCode).toBe(200);
      expect(abandoned.json()).toMatchObject({ id: open.id, status: 'abandoned' });
      expect((await start(subjectId)).statusCode).toBe(201);
      const again = await call('DELETE', `/v1/nature/subjects/${subjectId}/assessments/${open.id}`);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'assessment_not_open', assessment_status: 'abandoned' });
    });

    it.each([
      ['an unknown language', { language: 'de' }, '/language'],
      ['an unknown field', { locale: 'en' }, '/locale'],
    ])('answers 422 to %s', async (_case, body, path) => {
      const response = await start(await newSubject(), body);
      expect(response.statusCode).toBe(422);
      expect(response.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    });

    it('accepts no body at all, defaulting to English', async () => {
      const response = await start(await newSubject());
      expect(response.json()).toMatchObject({ language: 'en', requested_language: 'en' });
    });

    it('answers 404 for an unknown subject, and for a subject of the other environment', async () => {
      expect((await start('sub_01M00000000000000000000000')).statusCode).toBe(404);
      const live = (await t.mint('live', 'sk')).raw;
      const liveSubject = (await call('POST', '/v1/nature/subjects', validSubject(), live)).json().id;
      expect((await start(liveSubject)).statusCode).toBe(404);
      expect((await call('GET', `/v1/nature/subjects/${liveSubject}/assessments`)).statusCode).toBe(404);
    });
  });

  describe('responses', () => {
    let subjectId: string;
    let assessmentId: string;
    beforeAll(async () => {
      subjectId = await newSubject();
      assessmentId = (await start(subjectId)).json().id;
      await patch(subjectId, assessmentId, [{ item_id: 'mn_001', value: 3 }]);
    });

    it.each([
      ['an unknown item id', [{ item_id: 'mn_077', value: 3 }], '/responses/0/item_id'],
      ['a value of 0', [{ item_id: 'mn_002', value: 0 }], '/responses/0/value'],
      ['a value of 6', [{ item_id: 'mn_002', value: 6 }], '/responses/0/value'],
      ['a fractional value', [{ item_id: 'mn_002', value: 3.5 }], '/responses/0/value'],
      ['a value as a string', [{ item_id: 'mn_002', value: '4' }], '/responses/0/value'],
      [
        'an item twice in one batch',
        [
          { item_id: 'mn_002', value: 3 },
          { item_id: 'mn_002', value: 4 },
        ],
        '/responses/1/item_id',
      ],
      ['an unknown field in an entry', [{ item_id: 'mn_002', value: 3, at: 'now' }], '/responses/0/at'],
      ['an empty batch', [], '/responses'],
      [
        '77 entries',
        Array.from({ length: 77 }, (_, i) => ({ item_id: `mn_${String((i % 76) + 1).padStart(3, '0')}`, value: 3 })),
        '/responses',
      ],
      [
        'a good entry beside a bad one',
        [
          { item_id: 'mn_002', value: 3 },
          { item_id: 'mn_003', value: 9 },
        ],
        '/responses/1/value',
      ],
    ])('answers 422 to %s, pointing at it, and stores nothing of the batch', async (_case, responses, path) => {
      const before = await logLength(t.envs, 'test');
      const response = await patch(subjectId, assessmentId, responses);
      expect(response.statusCode).toBe(422);
      expect(response.json().errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(await logLength(t.envs, 'test')).toBe(before);
      const assessment = (await call('GET', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`)).json();
      expect(assessment.responses_received).toBe(1);
    });

    it('answers a missing responses field with 422', async () => {
      const response = await call('PATCH', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`, { answers: [] });
      expect(response.statusCode).toBe(422);
    });

    it('accepts the same answer again without a new event (a safe retry)', async () => {
      const before = await logLength(t.envs, 'test');
      const response = await patch(subjectId, assessmentId, [{ item_id: 'mn_001', value: 3 }]);
      expect(response.statusCode).toBe(200);
      expect(response.json().responses_received).toBe(1);
      expect(await logLength(t.envs, 'test')).toBe(before);
    });

    it('replaces an answer given another value, keeping both in the log', async () => {
      const response = await patch(subjectId, assessmentId, [{ item_id: 'mn_001', value: 5 }]);
      expect(response.json().responses_received).toBe(1);
      const { events } = await t.envs.test.events.readStream(assessmentStream(assessmentId));
      const answers = events
        .filter((e) => e.type === 'ResponsesSubmitted')
        .map((e) => (e.data as { pii: { responses: unknown[] } }).pii.responses);
      expect(answers).toEqual([[{ item_id: 'mn_001', value: 3 }], [{ item_id: 'mn_001', value: 5 }]]);
    });

    it('answers 404 for an assessment under another subject or an unknown one', async () => {
      const other = await newSubject();
      expect((await patch(other, assessmentId, [{ item_id: 'mn_002', value: 3 }])).statusCode).toBe(404);
      expect((await call('GET', `/v1/nature/subjects/${other}/assessments/${assessmentId}`)).statusCode).toBe(404);
      expect((await patch(subjectId, 'asm_01M00000000000000000000000', [{ item_id: 'mn_002', value: 3 }])).json().code).toBe('not_found');
    });
  });

  it('refuses responses to a completed assessment with 409 assessment_not_open and its status', async () => {
    const subjectId = await newSubject();
    const assessmentId = (await start(subjectId)).json().id;
    await patch(subjectId, assessmentId, knownResponses);
    await profileOf(subjectId);
    const response = await patch(subjectId, assessmentId, [{ item_id: 'mn_001', value: 1 }]);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'assessment_not_open', assessment_status: 'completed' });
    expect((await call('DELETE', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`)).statusCode).toBe(409);
  });

  it('expires an open assessment 7 days after creation: 409 with status expired, and a new one may start', async () => {
    const local = await openTestApp();
    const localKey = (await local.mint('test', 'sk')).raw;
    const req = (method: Method, url: string, payload?: unknown) =>
      local.app.inject({ method, url, headers: auth(localKey), ...(payload !== undefined && { payload: payload as object }) });
    const subjectId = (await req('POST', '/v1/nature/subjects', validSubject())).json().id;
    const assessmentId = (await req('POST', `/v1/nature/subjects/${subjectId}/assessments`)).json().id;
    local.advance(7 * 24 * 3600 * 1000);
    const late = await req('PATCH', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`, {
      responses: [{ item_id: 'mn_001', value: 2 }],
    });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'assessment_not_open', assessment_status: 'expired' });
    expect((await req('GET', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`)).json().status).toBe('expired');
    expect((await req('POST', `/v1/nature/subjects/${subjectId}/assessments`)).statusCode).toBe(201);
    await local.close();
  });

  it("pages a subject's assessments and answers 400 to a cursor from another list", async () => {
    const subjectId = await newSubject();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await start(subjectId)).json().id;
      ids.push(id);
      await call('DELETE', `/v1/nature/subjects/${subjectId}/assessments/${id}`);
    }
    const page = (await call('GET', `/v1/nature/subjects/${subjectId}/assessments?limit=2`)).json();
    expect(page.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    const rest = (await call('GET', `/v1/nature/subjects/${subjectId}/assessments?limit=2&starting_after=${ids[1]}`)).json();
    expect(rest).toMatchObject({ has_more: false, data: [{ id: ids[0], status: 'abandoned' }] });
    expect((await call('GET', `/v1/nature/subjects/${subjectId}/assessments?starting_after=${subjectId}`)).json().code).toBe(
      'invalid_cursor',
    );
    // An assessment of another subject is no cursor for this subject's list.
    const other = await newSubject();
    const foreign = (await start(other)).json().id;
    expect((await call('GET', `/v1/nature/subjects/${subjectId}/assessments?starting_after=${foreign}`)).json().code).toBe(
      'invalid_cursor',
    );
  });
});
