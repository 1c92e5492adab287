import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { serverPool } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

describe('webhook delivery across a crash', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const pool = serverPool(() => env);
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path, NATURE_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms', NATURE_WEBHOOK_TIMEOUT_MS: '5000' };
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });

  it('delivers after the server is killed in the middle of a delivery and restarted', async () => {
    const key = JSON.parse((await runCliInProcess(keyCreateArgs(), env)).stdout).key as string;
    // The first delivery is never answered: the server dies while it waits.
    const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200));
    const call = async (base: string, method: string, path: string, body?: unknown) =>
      (
        await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        })
      ).json() as Promise<Record<string, any>>;

    const first = await pool.start();
    const endpoint = await call(first.url, 'POST', '/v1/nature/webhook_endpoints', { url: receiver.url });
    receiver.useSecret(endpoint.secret);
    const subject = await call(first.url, 'POST', '/v1/nature/subjects', validSubject());
    const assessment = await call(first.url, 'POST', `/v1/nature/subjects/${subject.id}/assessments`, {});
    await call(first.url, 'PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, { responses: knownResponses });
    await receiver.waitFor(1);
    await pool.kill(first);

    const second = await pool.start();
    const [hung, delivered] = await receiver.waitFor(2);
    expect(delivered!.verified.ok).toBe(true);
    expect(delivered!.headers['webhook-id']).toBe(hung!.headers['webhook-id']);
    const event = JSON.parse(delivered!.body);
    expect((await call(second.url, 'GET', `/v1/nature/profiles/${event.data.profile_id}`)).subject_id).toBe(subject.id);
    // The attempt cut short by the crash was never recorded: the schedule counts attempts, not handovers.
    const attempts = await eventually(async () => {
      const list = (await call(second.url, 'GET', `/v1/nature/webhook_endpoints/${endpoint.id}/deliveries`)).data as Record<
        string,
        unknown
      >[];
      return list.length > 0 ? list : undefined;
    });
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'succeeded']]);
    await receiver.close();
  });
});
