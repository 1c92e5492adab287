import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/settings/config.js';
import { checkBackends } from '../../src/wiring/backend-checks.js';
import { client } from '../support/api-client.js';
import { knownProfile } from '../support/known-answers.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { freePort } from '../support/processes.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const shared = sharedPostgres();

describe.skipIf(postgresBinDir === undefined)('the log on PostgreSQL (NATURE_EVENT_STORE=postgres)', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    url = await shared.database();
    t = await openTestApp({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url });
  });
  afterAll(async () => {
    await t?.close();
    await shared.stopShared();
  });

  it('scores a whole assessment through the API, its events in the environment’s schema on the server', async () => {
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const { subjectId, assessmentId } = await api.completeAssessment();
    expect(await api.profileOf(subjectId)).toMatchObject({ ...knownProfile, subject_id: subjectId, assessment_id: assessmentId });
    const sql = postgres(url, { max: 1 });
    const types = await sql<{ type: string }[]>`SELECT DISTINCT type FROM nature_sandbox.events`;
    expect(types.map((row) => row.type)).toEqual(expect.arrayContaining(['SubjectCreated', 'ResponsesSubmitted', 'ScoringCompleted']));
    const [production] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM nature_production.events`;
    expect(production!.n).toBe('0');
    await sql.end();
  });

  it('stops start-up in one line naming POSTGRES_URL when the server does not answer, never showing the password', async () => {
    const closed = `postgres://nature:s3cret-pw@127.0.0.1:${await freePort()}/nature`;
    const config = loadConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: closed, NATURE_BACKEND_TIMEOUT_MS: '5000' });
    const failure = await checkBackends(config).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) did not answer/);
    expect(failure?.message).not.toContain('s3cret-pw');
    expect(failure?.message).not.toContain('\n');
  });

  it('stops start-up in one line when POSTGRES_URL asks for TLS and the server has none', async () => {
    const config = loadConfig({
      NATURE_EVENT_STORE: 'postgres',
      POSTGRES_URL: `${url}?sslmode=require`,
      NATURE_BACKEND_TIMEOUT_MS: '5000',
    });
    const failure = await checkBackends(config).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(
      /^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) does not speak TLS \(.*\): turn ssl on on the server, or check sslmode in POSTGRES_URL$/,
    );
  });
});
