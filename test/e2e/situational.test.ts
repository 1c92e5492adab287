import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNewEvents } from '../../src/commands/handle-command.js';
import { newId } from '../../src/domain/ids.js';
import { situationalStream } from '../../src/domain/situational-assessment.js';
import { type Body, client } from '../support/api-client.js';
import { runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { startReceiver } from '../support/receiver.js';
import { auth, logLength, openTestApp, type TestApp } from '../support/test-app.js';

const SITUATION =
  'Leading a small team through a hard deadline: planning the work, keeping everyone calm and explaining the changes to the client.';
const FRENCH = "Apprendre à nager à un enfant qui a peur de l'eau : le rassurer, lui montrer les gestes et l'encourager.";

describe('situational assessments over HTTP', () => {
  let t: TestApp;
  let key: string;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await openTestApp();
    key = (await t.mint('test', 'sk', ['nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
    api = client(t, key);
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (body: Body, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/v1/situational/assessments', headers: { ...auth(key), ...headers }, payload: body });
  const settled = (id: string) =>
    eventually<Body>(async () => {
      const { body } = await api.call('GET', `/v1/situational/assessments/${id}`);
      return body.status === 'pending' ? undefined : body;
    });

  it('answers 202 pending, then completes with the result, announced by a signed webhook', async () => {
    const receiver = await startReceiver();
    const endpoint = await api.register(receiver.url, ['situational.assessment.completed']);
    receiver.useSecret(endpoint.secret);
    const { subjectId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);

    const response = await create({ subject_id: subjectId, situation_context: SITUATION });
    expect(response.statusCode).toBe(202);
    const accepted = response.json();
    expect(accepted).toMatchObject({
      object: 'situational_assessment',
      subject_id: subjectId,
      profile_id: profile.id,
      language: 'en',
      livemode: false,
    });
    expect(accepted.id).toMatch(/^sit_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(['pending', 'completed']).toContain(accepted.status);

    const done = await settled(accepted.id);
    expect(done).toMatchObject({ status: 'completed', method_version: 'situational-v1' });
    expect(Object.keys(done.situation.natures)).toEqual(Object.keys(profile.natures));
    expect(Object.keys(done.alignment.intelligences)).toEqual(Object.keys(profile.intelligences));
    // What the text says it draws on: leading and planning, calming people, explaining.
    expect(done.situation.intelligences.interpersonal).toBeGreaterThan(0);
    expect(done.situation.natures.administrative).toBeGreaterThan(0);
    expect(done.situation.intelligences.musical).toBe(0);
    expect(done.alignment.overall).toBeGreaterThanOrEqual(0);
    expect(done.alignment.overall).toBeLessThanOrEqual(1);
    const sentences = done.narrative.split(/(?<=\.)\s+/);
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    expect(sentences.length).toBeLessThanOrEqual(5);

    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.verified.ok).toBe(true);
    const event = JSON.parse(delivery!.body);
    expect(event).toMatchObject({
      type: 'situational.assessment.completed',
      object: 'event',
      livemode: false,
      data: { id: accepted.id, subject_id: subjectId, status: 'completed' },
    });
    expect(delivery!.headers['webhook-id']).toBe(event.id);
    // The event is listed and fetched as every event is; nothing personal in it.
    expect((await api.call('GET', `/v1/nature/events/${event.id}`)).body).toEqual(event);
    expect(delivery!.body).not.toContain('deadline');
    // Never logged, at debug level either: neither the text nor the narrative.
    expect(t.logs.join('')).not.toContain('hard deadline');
    expect(t.logs.join('')).not.toContain(done.narrative);
    await receiver.close();
    await api.deleteEndpoints();
  });

  it('gives the same result for the same text and profile, and lists by subject, newest first', async () => {
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const first = await settled((await create({ subject_id: subjectId, situation_context: SITUATION })).json().id);
    const second = await settled((await create({ subject_id: subjectId, situation_context: SITUATION })).json().id);
    const result = ({ situation, alignment, narrative }: Body) => ({ situation, alignment, narrative });
    expect(result(second)).toEqual(result(first));
    const list = await api.call('GET', `/v1/situational/assessments?subject_id=${subjectId}&limit=1`);
    expect(list.body).toMatchObject({ object: 'list', has_more: true });
    expect(list.body.data.map((a: Body) => a.id)).toEqual([second.id]);
    const next = await api.call('GET', `/v1/situational/assessments?subject_id=${subjectId}&starting_after=${second.id}`);
    expect(next.body.data.map((a: Body) => a.id)).toEqual([first.id]);
    expect(next.body.data[0]).toEqual(first);
  });

  it("reads in the subject's assessment language by default, and in the language asked for", async () => {
    const created = (await api.call('POST', '/v1/nature/subjects', { ...subjectBody() })).body;
    const assessment = (await api.call('POST', `/v1/nature/subjects/${created.id}/assessments`, { language: 'fr' })).body;
    const { knownResponses } = await import('../support/known-answers.js');
    await api.call('PATCH', `/v1/nature/subjects/${created.id}/assessments/${assessment.id}`, { responses: knownResponses });
    await api.profileOf(created.id);
    const french = await settled((await create({ subject_id: created.id, situation_context: FRENCH })).json().id);
    expect(french).toMatchObject({ status: 'completed', language: 'fr' });
    expect(french.narrative).toMatch(/situation/i);
    expect(french.situation.natures.educative).toBeGreaterThan(0);
    const english = await settled((await create({ subject_id: created.id, situation_context: SITUATION, language: 'en' })).json().id);
    expect(english.language).toBe('en');
  });

  it('fails with situation_unclear when too little of the text can be read', async () => {
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const failed = await settled(
      (await create({ subject_id: subjectId, situation_context: 'zxqv blorf wibble quux frobnicate' })).json().id,
    );
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'situation_unclear', method_version: 'situational-v1' });
    expect(failed).not.toHaveProperty('alignment');
  });

  it('refuses a subject without a profile (409), an unknown subject (404) and bad input (422), appending nothing', async () => {
    const subject = (await api.call('POST', '/v1/nature/subjects', subjectBody())).body;
    const before = await logLength(t.envs, 'test');
    expect((await create({ subject_id: subject.id, situation_context: SITUATION })).json()).toMatchObject({
      status: 409,
      code: 'profile_required',
    });
    expect((await create({ subject_id: 'sub_01M00000000000000000000000', situation_context: SITUATION })).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const short = (await create({ subject_id: subject.id, situation_context: 'Too short.' })).json();
    expect(short).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(short.errors).toEqual([expect.objectContaining({ path: '/situation_context' })]);
    expect((await create({ subject_id: subject.id, situation_context: 'x'.repeat(4001) })).json()).toMatchObject({ status: 422 });
    expect((await create({ subject_id: subject.id, situation_context: SITUATION, language: 'de' })).json()).toMatchObject({ status: 422 });
    expect((await create({ subject_id: subject.id, situation_context: SITUATION, extra: 1 })).json()).toMatchObject({ status: 422 });
    expect((await create({ subject_id: subject.id, situation_context: `${SITUATION}\u0007` })).json()).toMatchObject({ status: 422 });
    // Paragraphs are text: line breaks and tabs pass validation (and meet the missing profile).
    expect((await create({ subject_id: subject.id, situation_context: `${SITUATION}\n\n\tThen the review.` })).json()).toMatchObject({
      status: 409,
    });
    expect((await api.call('GET', '/v1/situational/assessments/sit_01M00000000000000000000000')).body).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('needs the situational scopes: keys without them are refused, and no pk key reaches the routes', async () => {
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const id = (await create({ subject_id: subjectId, situation_context: SITUATION })).json().id;
    const natureOnly = client(t, (await t.mint('test', 'sk', ['nature:read', 'nature:write'])).raw);
    expect(
      (await natureOnly.call('POST', '/v1/situational/assessments', { subject_id: subjectId, situation_context: SITUATION })).body,
    ).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    expect((await natureOnly.call('GET', `/v1/situational/assessments/${id}`)).body).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    const reader = client(t, (await t.mint('test', 'sk', ['situational:read'])).raw);
    expect((await reader.call('GET', `/v1/situational/assessments/${id}`)).status).toBe(200);
    expect(
      (await reader.call('POST', '/v1/situational/assessments', { subject_id: subjectId, situation_context: SITUATION })).body,
    ).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    const pk = client(t, (await t.mint('test', 'pk', ['nature:read'])).raw);
    expect((await pk.call('GET', `/v1/situational/assessments/${id}`)).status).toBe(403);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, and makes one assessment', async () => {
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const headers = { 'idempotency-key': `sit-${Math.random()}` };
    const first = await create({ subject_id: subjectId, situation_context: SITUATION }, headers);
    const again = await create({ subject_id: subjectId, situation_context: SITUATION }, headers);
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const other = await create({ subject_id: subjectId, situation_context: `${SITUATION} Again.` }, headers);
    expect(other.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    const list = await api.call('GET', `/v1/situational/assessments?subject_id=${subjectId}`);
    expect(list.body.data.map((a: Body) => a.id)).toEqual([first.json().id]);
  });

  it('meters completed situational assessments for the key that asked for them, failed ones not', async () => {
    const own = (await t.mint('test', 'sk', ['nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
    const mine = client(t, own);
    const { subjectId } = await mine.completeAssessment();
    await mine.profileOf(subjectId);
    const ask = async (situation_context: string) =>
      settled((await mine.call('POST', '/v1/situational/assessments', { subject_id: subjectId, situation_context })).body.id);
    expect((await ask(SITUATION)).status).toBe('completed');
    expect((await ask('zxqv blorf wibble quux frobnicate')).status).toBe('failed');
    const keyId = (await t.keys.list()).find((record) => own.endsWith(record.last4) && record.scopes.includes('situational:write'))!.id;
    const usage = await eventually(async () => {
      const report = (await mine.call('GET', '/v1/nature/usage?granularity=month')).body;
      const row = report.data.find((r: Body) => r.key_id === keyId);
      return row?.completed_situational_assessments === 1 ? row : undefined;
    });
    expect(usage).toMatchObject({ completed_assessments: 1, completed_situational_assessments: 1 });
  });

  it('reads outcomes of an earlier method again with the current one (nature situational rebuild), announcing nothing', async () => {
    const { subjectId, assessmentId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);
    const current = await settled((await create({ subject_id: subjectId, situation_context: SITUATION })).json().id);
    // An outcome an earlier method recorded, as a server of that version left it in the log: read as unclear.
    const id = newId('sit');
    const at = new Date().toISOString();
    const earlier = [
      {
        type: 'SituationalAssessmentRequested',
        data: {
          situational_assessment_id: id,
          ...{ subject_id: subjectId, profile_id: profile.id, assessment_id: assessmentId, language: 'en', created_at: at },
          pii: { situation_context: SITUATION },
        },
      },
      {
        type: 'SituationalAssessmentCompleted',
        data: {
          ...{ situational_assessment_id: id, subject_id: subjectId, event_id: newId('evt'), status: 'failed' },
          ...{ failure_code: 'situation_unclear', method_version: 'situational-v0', completed_at: at, pii: null },
        },
      },
    ];
    await t.envs.test.events.appendToStream(situationalStream(id), toNewEvents(earlier, {}), 'no_stream');
    const announced = () =>
      api.call('GET', '/v1/nature/events?limit=100').then(({ body }) => (body.data as Body[]).filter((event) => event.data.id === id));
    await eventually(async () => ((await announced()).length === 1 ? true : undefined));
    expect(await settled(id)).toMatchObject({ status: 'failed', method_version: 'situational-v0' });

    const rebuild = () =>
      runCliInProcess(['situational', 'rebuild', '--method-version', 'situational-v1', '--env', 'test', '--json'], {
        NATURE_DATA_DIR: t.dataDir,
      });
    const first = await rebuild();
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ method_version: 'situational-v1', recomputed: 1 });
    const after = await eventually(async () => {
      const { body } = await api.call('GET', `/v1/situational/assessments/${id}`);
      return body.method_version === 'situational-v1' ? body : undefined;
    });
    // What the current method reads in that text for that profile; the request was answered when it was first read.
    const { situation, alignment, narrative } = current;
    expect(after).toMatchObject({ status: 'completed', situation, alignment, narrative, completed_at: at });
    expect(after).not.toHaveProperty('failure_code');
    expect(await announced()).toHaveLength(1);
    // Again: everything is read with the version already.
    expect(JSON.parse((await rebuild()).stdout)).toMatchObject({ recomputed: 0 });
    const audit = (await api.call('GET', `/v1/nature/subjects/${subjectId}/audit?limit=100`)).body.data as Body[];
    expect(audit.filter((entry) => entry.data.situational_assessment_id === id).map((entry) => entry.type)).toEqual([
      'situational.requested',
      'situational.completed',
      'situational.recomputed',
    ]);
  });

  it('keeps the request and outcome in the audit, then answers 410 once the subject is erased, the text unreadable in the log', async () => {
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const id = (await create({ subject_id: subjectId, situation_context: SITUATION })).json().id;
    await settled(id);
    const [request] = (await t.envs.test.events.readStream(situationalStream(id))).events;
    expect(request!.data).toMatchObject({ pii: { situation_context: SITUATION } });
    const audited = async () =>
      ((await api.call('GET', `/v1/nature/subjects/${subjectId}/audit?limit=100`)).body.data as Body[]).filter((entry) =>
        entry.type.startsWith('situational.'),
      );
    expect(await audited()).toEqual([
      expect.objectContaining({
        type: 'situational.requested',
        personal_data: 'present',
        data: expect.objectContaining({ situational_assessment_id: id, language: 'en', situation_context: SITUATION }),
      }),
      expect.objectContaining({
        type: 'situational.completed',
        request_id: null,
        data: expect.objectContaining({ situational_assessment_id: id, status: 'completed', method_version: 'situational-v1' }),
      }),
    ]);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    // The audit still tells what happened, the text gone.
    expect((await audited()).map(({ type, personal_data, data }) => [type, personal_data, data.situation_context])).toEqual([
      ['situational.requested', 'erased', null],
      ['situational.completed', 'none', undefined],
    ]);
    expect((await api.call('GET', `/v1/situational/assessments/${id}`)).body).toMatchObject({ status: 410, code: 'subject_erased' });
    expect((await api.call('GET', `/v1/situational/assessments?subject_id=${subjectId}`)).body).toMatchObject({ status: 410 });
    expect((await api.call('GET', '/v1/situational/assessments?limit=100')).body.data.map((a: Body) => a.id)).not.toContain(id);
    expect((await create({ subject_id: subjectId, situation_context: SITUATION })).json()).toMatchObject({ status: 410 });
    // The text reads as nothing now; the result stays sealed under a key that is gone.
    const [text, result] = (await t.envs.test.events.readStream(situationalStream(id))).events;
    expect(text!.data).toMatchObject({ pii: null });
    expect(result!.data).toMatchObject({ pii: { alg: 'A256GCM' } });
    expect(await t.envs.test.dataKeys.find(subjectId)).toBeUndefined();
  });
});

function subjectBody() {
  return {
    external_subject_id: `sit-${Math.random().toString(36).slice(2)}`,
    consent: { text_version: 'consent-v3', granted_at: '2026-11-01T09:30:00.000Z', ui_hash: `sha256:${'ab'.repeat(32)}` },
  };
}
