import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { batches, knownProfile, knownResponses } from '../support/known-answers.js';
import { callServer, type ServerProcess, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

/** Assessments against the server as its own process: real HTTP, real concurrency, real SIGKILL. */
describe('assessments on a running server', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let key: string;
  const pool = serverPool(() => env);
  beforeEach(async () => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
    const minted = await runCliInProcess(keyCreateArgs(), env);
    key = JSON.parse(minted.stdout).key;
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });
  const start = () => pool.start();
  const kill = (server: ServerProcess) => pool.kill(server);
  const call = (server: ServerProcess, method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);
  const begin = async (server: ServerProcess) => {
    const subject = (await call(server, 'POST', '/v1/nature/subjects', validSubject())).body;
    const assessment = (await call(server, 'POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
    return { subjectId: subject.id as string, path: `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}` };
  };
  const profileOf = (server: ServerProcess, subjectId: string) =>
    eventually(async () => {
      const response = await call(server, 'GET', `/v1/nature/subjects/${subjectId}/profile`);
      return response.status === 200 ? response.body : undefined;
    });

  it('loses nothing when four PATCH batches arrive at once over HTTP, and scores once', async () => {
    const server = await start();
    const { subjectId, path } = await begin(server);
    const results = await Promise.all(batches(4).map((batch) => call(server, 'PATCH', path, { responses: batch })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(Math.max(...results.map((r) => r.body.responses_received))).toBe(76);
    const profile = await profileOf(server, subjectId);
    expect(profile).toMatchObject(knownProfile);
    expect((await call(server, 'GET', path)).body).toMatchObject({ status: 'completed', profile_id: profile.id });
  });

  it('resumes after a SIGKILL between batches and completes with the exact profile', async () => {
    const first = await start();
    const { subjectId, path } = await begin(first);
    const [one, two, three, four] = batches(4);
    expect((await call(first, 'PATCH', path, { responses: one })).status).toBe(200);
    expect((await call(first, 'PATCH', path, { responses: two })).status).toBe(200);
    await kill(first);

    const second = await start();
    expect((await call(second, 'GET', path)).body).toMatchObject({ status: 'in_progress', responses_received: 38 });
    expect((await call(second, 'PATCH', path, { responses: three })).body.responses_received).toBe(57);
    expect((await call(second, 'PATCH', path, { responses: four })).body.status).toBe('scoring');
    expect(await profileOf(second, subjectId)).toMatchObject({ ...knownProfile, subject_id: subjectId });
  });

  it('scores once on restart when killed right after the 76th answer was acknowledged', async () => {
    const first = await start();
    const { subjectId, path } = await begin(first);
    const last = await call(first, 'PATCH', path, { responses: knownResponses });
    await kill(first);
    expect(last.body.status).toBe('scoring');

    const second = await start();
    const profile = await profileOf(second, subjectId);
    expect(profile).toMatchObject(knownProfile);
    // A second restart replays nothing new: still the one profile.
    await kill(second);
    const third = await start();
    const assessment = (await call(third, 'GET', path)).body;
    expect(assessment).toMatchObject({ status: 'completed', profile_id: profile.id });
    expect((await call(third, 'GET', `/v1/nature/subjects/${subjectId}/profile`)).body.id).toBe(profile.id);
  });
});
