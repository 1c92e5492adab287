import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/settings/config.js';
import { checkBackends } from '../../src/wiring/backend-checks.js';
import { client } from '../support/api-client.js';
import { knownProfile } from '../support/known-answers.js';
import { postgresBinDir, sharedPostgres, startPostgresCluster } from '../support/postgres-cluster.js';
import { freePort } from '../support/processes.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const shared = sharedPostgres();

afterAll(() => shared.stopShared());

// Either log beside them: the SQLite default, or PostgreSQL's in the same schemas.
describe.skipIf(postgresBinDir === undefined).each<{ log: string; settings: Record<string, string> }>([
  { log: 'sqlite', settings: {} },
  { log: 'postgres', settings: { NATURE_EVENT_STORE: 'postgres' } },
])('read models on PostgreSQL (NATURE_READ_MODELS=postgres), the log on $log', ({ settings }) => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    url = await (await shared.cluster()).createDatabase();
    t = await openTestApp({ ...settings, NATURE_READ_MODELS: 'postgres', POSTGRES_URL: url });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('scores a whole assessment and lists it through the API, its read models in the environment’s schema', async () => {
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const { subjectId, assessmentId } = await api.completeAssessment();
    expect(await api.profileOf(subjectId)).toMatchObject({ ...knownProfile, subject_id: subjectId, assessment_id: assessmentId });
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v1/nature/subjects/${subjectId}/assessments`,
      headers: { authorization: `Bearer ${(await t.mint('test', 'sk')).raw}` },
    });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((assessment: { id: string }) => assessment.id)).toEqual([assessmentId]);
    const sql = postgres(url, { max: 1 });
    const rows = await sql<{ collection: string }[]>`SELECT DISTINCT collection FROM nature_sandbox.documents`;
    expect(rows.map((row) => row.collection)).toEqual(expect.arrayContaining(['subjects', 'assessments', 'profiles']));
    const [production] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM nature_production.documents`;
    expect(production!.n).toBe('0');
    await sql.end();
  });
});

describe('read models on PostgreSQL at start-up', () => {
  it('stops start-up in one line naming POSTGRES_URL when the server does not answer, never showing the password', async () => {
    const closed = `postgres://nature:s3cret-pw@127.0.0.1:${await freePort()}/nature`;
    const config = loadConfig({ NATURE_READ_MODELS: 'postgres', POSTGRES_URL: closed, NATURE_BACKEND_TIMEOUT_MS: '5000' });
    const failure = await checkBackends(config).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) did not answer/);
    expect(failure?.message).not.toContain('s3cret-pw');
  });
});

describe.skipIf(postgresBinDir === undefined)('read models on PostgreSQL when the server goes away', () => {
  it('answers a read 503 service_unavailable with Retry-After, never 500', async () => {
    const cluster = await startPostgresCluster();
    const t = await openTestApp({ NATURE_READ_MODELS: 'postgres', POSTGRES_URL: await cluster.createDatabase() });
    try {
      const key = (await t.mint('test', 'sk')).raw;
      const { subjectId } = await client(t, key).completeAssessment();
      await cluster.stop();
      const response = await t.app.inject({ method: 'GET', url: `/v1/nature/subjects/${subjectId}`, headers: auth(key) });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    } finally {
      await t.close();
      await cluster.stop();
    }
  }, 60_000);
});
