import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { startReceiver } from '../support/receiver.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const shared = sharedPostgres();

describe.skipIf(postgresBinDir === undefined)('situational assessments with every store on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    const url = await shared.database();
    t = await openTestApp({ NATURE_EVENT_STORE: 'postgres', NATURE_READ_MODELS: 'postgres', POSTGRES_URL: url });
  });
  afterAll(async () => {
    await t?.close();
    await shared.stopShared();
  });

  it('reads a situation, announces it by a signed webhook, and answers 410 once the subject is erased', async () => {
    const api = client(t, (await t.mint('test', 'sk', ['nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw);
    const receiver = await startReceiver();
    receiver.useSecret((await api.register(receiver.url, ['situational.assessment.completed'])).secret);
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const situation = 'Auditing the accounts of a small charity and explaining the findings to its board.';
    const accepted = await api.call('POST', '/v1/situational/assessments', { subject_id: subjectId, situation_context: situation });
    expect(accepted.status).toBe(202);
    const done = await eventually(async () => {
      const { body } = await api.call('GET', `/v1/situational/assessments/${accepted.body.id}`);
      return body.status === 'completed' ? body : undefined;
    });
    expect(done.situation.intelligences.logical).toBeGreaterThan(0);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.verified.ok).toBe(true);
    expect(JSON.parse(delivery!.body).data).toEqual({ id: accepted.body.id, subject_id: subjectId, status: 'completed' });
    expect((await api.call('GET', `/v1/situational/assessments?subject_id=${subjectId}`)).body.data.map((a: Body) => a.id)).toEqual([
      accepted.body.id,
    ]);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    expect((await api.call('GET', `/v1/situational/assessments/${accepted.body.id}`)).body).toMatchObject({ status: 410 });
    await receiver.close();
  });
});
