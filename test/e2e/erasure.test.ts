import { afterEach, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { filesContaining } from '../support/byte-scan.js';
import { receiverPool } from '../support/receiver.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const consent = validSubject().consent;
const subjectWith = (externalId: string, cohort: string) => ({
  external_subject_id: externalId,
  metadata: { cohort, role: `${cohort}-role` },
  consent,
});

describe('erasure by crypto-shredding', () => {
  let t: TestApp;
  const receivers = receiverPool();
  afterEach(async () => {
    await receivers.closeAll();
    await t.close();
  });

  it('leaves no plaintext of the erased subject in any store file or log line, while the others read fine', async () => {
    t = await openTestApp();
    const key = (await t.mint('test', 'sk')).raw;
    const api = client(t, key);
    const gone = { ext: 'MARKER-GONE-EXT-5e1f09', cohort: 'MARKER-GONE-META-a73c' };
    const kept = { ext: 'MARKER-KEPT-EXT-2b77d0', cohort: 'MARKER-KEPT-META-c18e' };
    const erased = await api.completeAssessment(subjectWith(gone.ext, gone.cohort));
    const other = await api.completeAssessment(subjectWith(kept.ext, kept.cohort));
    const erasedProfile = await api.profileOf(erased.subjectId);
    const otherProfile = await api.profileOf(other.subjectId);
    // A list filtered by the external id: its query string must not reach the log.
    expect((await api.call('GET', `/v1/nature/subjects?external_subject_id=${gone.ext}`)).body.data).toHaveLength(1);
    const dataKey = await t.envs.test.dataKeys.find(erased.subjectId);
    expect(dataKey).toHaveLength(32);

    const deleted = await api.call('DELETE', `/v1/nature/subjects/${erased.subjectId}`);
    expect(deleted).toEqual({ status: 200, body: { id: erased.subjectId, object: 'subject', deleted: true } });

    const base = `/v1/nature/subjects/${erased.subjectId}`;
    const under: [string, string, unknown?][] = [
      ['GET', base],
      ['DELETE', base],
      ['GET', `${base}/assessments`],
      ['POST', `${base}/assessments`],
      ['GET', `${base}/assessments/${erased.assessmentId}`],
      ['PATCH', `${base}/assessments/${erased.assessmentId}`, { responses: [{ item_id: 'mn_001', value: 3 }] }],
      ['DELETE', `${base}/assessments/${erased.assessmentId}`],
      ['GET', `${base}/profile`],
      ['GET', `/v1/nature/profiles/${erasedProfile.id}`],
      ['GET', `/v1/nature/profiles/${erasedProfile.id}/chart.svg`],
    ];
    for (const [method, url, payload] of under) {
      const response = await api.call(method as 'GET', url, payload);
      expect(response.status, `${method} ${url}`).toBe(410);
      expect(response.body).toMatchObject({ code: 'subject_erased', status: 410, subject_id: erased.subjectId });
    }
    // The subject is gone from lists and from the filter by its external id.
    expect((await api.call('GET', `/v1/nature/subjects?external_subject_id=${gone.ext}`)).body.data).toEqual([]);
    expect((await api.call('GET', '/v1/nature/subjects?limit=100')).body.data.map((s: Body) => s.id)).toEqual([other.subjectId]);

    // The others read as before.
    expect((await api.call('GET', `/v1/nature/subjects/${other.subjectId}`)).body).toMatchObject({
      external_subject_id: kept.ext,
      metadata: { cohort: kept.cohort },
    });
    expect((await api.call('GET', `/v1/nature/profiles/${otherProfile.id}`)).body).toEqual(otherProfile);

    // The audit stays readable: consent and the fact of erasure, with the personal values erased.
    const audit = (await api.call('GET', `${base}/audit?limit=100`)).body;
    const types = audit.data.map((entry: Body) => entry.type);
    expect(types[0]).toBe('subject.created');
    expect(types).toContain('responses.submitted');
    expect(types.at(-1)).toBe('subject.erased');
    expect(audit.data[0]).toMatchObject({ personal_data: 'erased', data: { external_subject_id: null, metadata: null } });
    expect(audit.data.find((entry: Body) => entry.type === 'consent.recorded')).toMatchObject({ personal_data: 'none', data: { consent } });
    expect(audit.data.find((entry: Body) => entry.type === 'responses.submitted')).toMatchObject({
      personal_data: 'erased',
      data: { responses: null },
    });
    expect(audit.data.find((entry: Body) => entry.type === 'assessment.scored')).toMatchObject({ data: { profile_id: erasedProfile.id } });

    await t.stop();
    const markers = [gone.ext, gone.cohort, `${gone.cohort}-role`];
    expect(filesContaining(t.dataDir, [...markers, dataKey!])).toEqual([]);
    // The subject still live is stored sealed too (test/e2e/at-rest.test.ts shows the scan finds plain text).
    expect(filesContaining(t.dataDir, [kept.ext, kept.cohort])).toEqual([]);
    const logs = t.logs.join('');
    expect(logs).toContain(erased.subjectId);
    for (const marker of [...markers, kept.ext, kept.cohort, key]) expect(logs).not.toContain(marker);
  });

  it('releases the external id for reuse; a second subject with it is a new subject', async () => {
    t = await openTestApp();
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const first = (await api.call('POST', '/v1/nature/subjects', subjectWith('reused-ext', 'a'))).body;
    expect((await api.call('POST', '/v1/nature/subjects', subjectWith('reused-ext', 'b'))).status).toBe(409);
    expect((await api.call('DELETE', `/v1/nature/subjects/${first.id}`)).status).toBe(200);
    const second = await api.call('POST', '/v1/nature/subjects', subjectWith('reused-ext', 'b'));
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.id);
    expect((await api.call('GET', '/v1/nature/subjects?external_subject_id=reused-ext')).body.data.map((s: Body) => s.id)).toEqual([
      second.body.id,
    ]);
    expect((await api.call('POST', '/v1/nature/subjects', subjectWith('reused-ext', 'c'))).body).toMatchObject({
      code: 'subject_exists',
      subject_id: second.body.id,
    });
  });

  it('answers 404 for an unknown subject, 410 when erasing twice, and keys of the other environment see nothing', async () => {
    t = await openTestApp();
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const live = client(t, (await t.mint('live', 'sk')).raw);
    const reader = client(t, (await t.mint('test', 'sk', ['nature:read'])).raw);
    expect((await api.call('DELETE', '/v1/nature/subjects/sub_01M00000000000000000000000')).body).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const subject = (await api.call('POST', '/v1/nature/subjects', validSubject())).body;
    expect((await live.call('DELETE', `/v1/nature/subjects/${subject.id}`)).status).toBe(404);
    expect((await reader.call('DELETE', `/v1/nature/subjects/${subject.id}`)).body).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
    expect((await api.call('DELETE', `/v1/nature/subjects/${subject.id}`)).status).toBe(200);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subject.id}`)).body).toMatchObject({ status: 410, code: 'subject_erased' });
    expect((await live.call('GET', `/v1/nature/subjects/${subject.id}/audit`)).status).toBe(404);
  });

  it("cancels the pending webhook deliveries of an erased subject's events: the next due attempt is recorded cancelled, unsent", async () => {
    t = await openTestApp({ NATURE_WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms', NATURE_WEBHOOK_TIMEOUT_MS: '500' });
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const failing = await receivers.start(() => 500);
    const endpoint = await api.register(failing.url);
    failing.useSecret(endpoint.secret);
    const { subjectId } = await api.completeAssessment();
    await failing.waitFor(1);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    const attemptsAtErasure = failing.received.length;
    // Newest first: once the delivery's last record is final, nothing more is sent for it.
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list[0]?.outcome === 'cancelled');
    expect(attempts[0]).toMatchObject({
      outcome: 'cancelled',
      status_code: null,
      next_attempt_at: null,
      error: expect.stringMatching(/erased/),
    });
    expect(attempts.slice(1).every((attempt) => attempt.outcome === 'retrying')).toBe(true);
    // Every POST made is recorded, and at most one was already under way at the erasure.
    expect(failing.received).toHaveLength(attempts.length - 1);
    expect(failing.received.length).toBeLessThanOrEqual(attemptsAtErasure + 1);
    const events = (await api.call('GET', '/v1/nature/events')).body.data as Body[];
    const completion = events.find((each) => each.type === 'nature.assessment.completed')!;
    expect((await api.call('POST', `/v1/nature/events/${completion.id}/redeliver`)).body).toMatchObject({
      status: 410,
      code: 'subject_erased',
    });
  });
});
