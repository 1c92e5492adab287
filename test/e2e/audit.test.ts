import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { runCliInProcess } from '../support/cli.js';
import { batches } from '../support/known-answers.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const DAY = 24 * 60 * 60 * 1000;

describe('audit of a subject, straight from the log', () => {
  let t: TestApp;
  let key: { id: string; raw: string };
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await openTestApp();
    key = await t.mint('test', 'sk');
    api = client(t, key.raw);
  });
  afterAll(async () => {
    await t.close();
  });

  it('matches the requests sent, in order, with key and request ids, through the API and the operator command', async () => {
    const requests: { type: string; request_id: string }[] = [];
    const send = async (type: string, method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
      const response = await t.app.inject({
        method,
        url,
        headers: auth(key.raw),
        ...(payload !== undefined && { payload: payload as object }),
      });
      expect(response.statusCode, response.body).toBeLessThan(300);
      requests.push({ type, request_id: response.headers['request-id'] as string });
      return response.json() as Body;
    };
    const subject = await send('subject.created', 'POST', '/v1/nature/subjects', validSubject());
    const base = `/v1/nature/subjects/${subject.id}`;
    const first = await send('assessment.started', 'POST', `${base}/assessments`);
    await send('responses.submitted', 'PATCH', `${base}/assessments/${first.id}`, { responses: [{ item_id: 'mn_001', value: 2 }] });
    await send('assessment.abandoned', 'DELETE', `${base}/assessments/${first.id}`);
    const second = await send('assessment.started', 'POST', `${base}/assessments`, { language: 'fr' });
    const [one, two] = batches(2);
    await send('responses.submitted', 'PATCH', `${base}/assessments/${second.id}`, { responses: one });
    await send('responses.submitted', 'PATCH', `${base}/assessments/${second.id}`, { responses: two });
    const profile = await api.profileOf(subject.id);

    const audit = (await api.call('GET', `${base}/audit?limit=100`)).body;
    expect(audit.object).toBe('list');
    expect(audit.has_more).toBe(false);
    const entries = audit.data as Body[];
    expect(entries.map((e) => e.type)).toEqual([
      'subject.created',
      'consent.recorded',
      'assessment.started',
      'responses.submitted',
      'assessment.abandoned',
      'assessment.started',
      'responses.submitted',
      'responses.submitted',
      'assessment.scored',
    ]);
    // Each request's entries carry its request id and the key that sent it; scoring is the service's own.
    const byRequest = entries.filter((e) => e.request_id !== null);
    expect(byRequest.map((e) => e.request_id)).toEqual([requests[0]!.request_id, ...requests.map((r) => r.request_id)]);
    expect(byRequest.every((e) => e.key_id === key.id)).toBe(true);
    expect(entries.at(-1)).toMatchObject({ key_id: null, request_id: null, data: { scoring_version: 'mn76-v2', profile_id: profile.id } });
    expect(entries[3]).toMatchObject({
      assessment_id: first.id,
      personal_data: 'present',
      data: { responses: [{ item_id: 'mn_001', value: 2 }] },
    });
    expect(entries[6]!.data.responses).toEqual(one);
    expect(entries[5]).toMatchObject({ assessment_id: second.id, data: { requested_language: 'fr', language: 'fr' } });
    const times = entries.map((e) => e.occurred_at);
    expect([...times].sort()).toEqual(times);

    // Pages oldest first, with cursors both ways.
    const page1 = (await api.call('GET', `${base}/audit?limit=4`)).body;
    expect(page1).toMatchObject({ has_more: true });
    const page2 = (await api.call('GET', `${base}/audit?limit=4&starting_after=${page1.data[3].id}`)).body;
    expect([...page1.data, ...page2.data].map((e: Body) => e.id)).toEqual(entries.slice(0, 8).map((e) => e.id));
    const back = (await api.call('GET', `${base}/audit?limit=2&ending_before=${page2.data[0].id}`)).body;
    expect(back.data.map((e: Body) => e.id)).toEqual(entries.slice(2, 4).map((e) => e.id));
    expect((await api.call('GET', `${base}/audit?starting_after=nope`)).body).toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect((await api.call('GET', `${base}/audit?verbose=1`)).body).toMatchObject({ status: 422, code: 'validation_failed' });

    const cli = await runCliInProcess(['audit', subject.id, '--env', 'test', '--json'], { NATURE_DATA_DIR: t.dataDir });
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual({ subject_id: subject.id, data: entries });
    const human = await runCliInProcess(['audit', subject.id, '--env', 'test'], { NATURE_DATA_DIR: t.dataDir });
    expect(human.stdout.trim().split('\n')).toHaveLength(entries.length);
    expect(human.stdout).toContain('assessment.abandoned');
    const missing = await runCliInProcess(['audit', 'sub_01M00000000000000000000000', '--env', 'live'], { NATURE_DATA_DIR: t.dataDir });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no subject sub_01M00000000000000000000000 in production');
  });

  it("prints what callers typed escaped, so a value cannot reorder, split or hide the operator's lines", async () => {
    // Metadata values are free text (any printable text, and these too); only names and ids must be one printable line.
    const typed = 'ops\u202Etxt.exe\u2028forged line\u3164';
    const subject = (await api.call('POST', '/v1/nature/subjects', { ...validSubject(), metadata: { note: typed } })).body;
    expect(subject.metadata).toEqual({ note: typed });

    const human = await runCliInProcess(['audit', subject.id, '--env', 'test'], { NATURE_DATA_DIR: t.dataDir });
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain('ops\\u202etxt.exe\\u2028forged line\\u3164');
    expect(human.stdout).not.toMatch(/[\u202E\u2028\u3164]/);
    // Every line is an entry of its own, starting with its time: none was split.
    for (const line of human.stdout.trim().split('\n')) expect(line).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The JSON is the same JSON: the escapes read back as the characters.
    const json = await runCliInProcess(['audit', subject.id, '--env', 'test', '--json'], { NATURE_DATA_DIR: t.dataDir });
    expect(json.stdout).not.toMatch(/[\u202E\u2028\u3164]/);
    expect(JSON.parse(json.stdout).data[0].data.metadata).toEqual({ note: typed });
  });

  it('shows an assessment that expired at its expiry time, and 404 for an unknown subject; pk keys are refused', async () => {
    const subject = (await api.call('POST', '/v1/nature/subjects', validSubject())).body;
    const assessment = (await api.call('POST', `/v1/nature/subjects/${subject.id}/assessments`)).body;
    t.advance(8 * DAY);
    const entries = (await api.call('GET', `/v1/nature/subjects/${subject.id}/audit`)).body.data as Body[];
    expect(entries.at(-1)).toMatchObject({
      id: `${assessment.id}:expired`,
      type: 'assessment.expired',
      occurred_at: assessment.expires_at,
    });
    expect((await api.call('GET', '/v1/nature/subjects/sub_01M00000000000000000000000/audit')).body).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const pk = client(t, (await t.mint('test', 'pk', ['nature:read'])).raw);
    expect((await pk.call('GET', `/v1/nature/subjects/${subject.id}/audit`)).status).toBe(403);
  });
});
