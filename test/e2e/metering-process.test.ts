import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/domain/plans.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { callServer, type ServerProcess, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const ASSESSMENTS = 8;

/**
 * Metering exactly once (issue 46): completions are counted per month, environment and key by a projection whose counter
 * rows commit with its checkpoint, so a server killed with SIGKILL in the middle of eight concurrent completions counts
 * each of them once after its restart, never twice, never none.
 */
describe('metering across SIGKILL, on a running server', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let keys: { id: string; key: string }[];
  const pool = serverPool(() => env);
  beforeEach(async () => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
    keys = [];
    for (const name of ['first', 'second']) keys.push(JSON.parse((await runCliInProcess(keyCreateArgs('live', name), env)).stdout));
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });

  /** The month's completed assessments in production per key, as the usage API reports them. */
  async function monthUsage(server: ServerProcess) {
    const month = monthOf(new Date());
    const { body } = await callServer(server, keys[0]!.key, 'GET', `/v1/nature/usage?from=${month}-01&granularity=month`);
    const perKey = Object.fromEntries(
      body.data.map((row: { key_id: string; completed_assessments: number }) => [row.key_id, row.completed_assessments]),
    );
    return { total: body.total_completed_assessments as number, used: body.quota.used as number, perKey };
  }

  it('counts each of 8 concurrent completions once when the server is killed in their midst and restarted', async () => {
    const first = await pool.start();
    // Eight open assessments, four started (and to be completed) with each key.
    const assessments: { key: string; subject: string; path: string }[] = [];
    for (let i = 0; i < ASSESSMENTS; i += 1) {
      const key = keys[i % 2]!.key;
      const subject = (await callServer(first, key, 'POST', '/v1/nature/subjects', validSubject())).body.id as string;
      const started = await callServer(first, key, 'POST', `/v1/nature/subjects/${subject}/assessments`, {});
      expect(started.status).toBe(201);
      assessments.push({ key, subject, path: `/v1/nature/subjects/${subject}/assessments/${started.body.id}` });
    }
    // All eight completing batches at once; the server is killed as soon as the first is answered, the rest in flight.
    const complete = (each: (typeof assessments)[number], server: ServerProcess) =>
      callServer(server, each.key, 'PATCH', each.path, { responses: knownResponses });
    const sent = assessments.map((each) => complete(each, first));
    await Promise.any(sent);
    await pool.kill(first);
    const answered = (await Promise.allSettled(sent)).filter((outcome) => outcome.status === 'fulfilled').length;
    expect(answered).toBeGreaterThanOrEqual(1);
    console.log(`metering across SIGKILL: ${answered} of ${ASSESSMENTS} completing batches answered before the kill`);

    // A caller retries what was cut off; what the killed server committed answers 409 (no longer open), else 200.
    const second = await pool.start();
    for (const each of assessments) expect([200, 409]).toContain((await complete(each, second)).status);
    for (const each of assessments) {
      await eventually(
        async () =>
          (await callServer(second, each.key, 'GET', `/v1/nature/subjects/${each.subject}/profile`)).status === 200 ? true : undefined,
        60_000,
      );
    }
    const counted = await eventually(async () => {
      const usage = await monthUsage(second);
      return usage.total >= ASSESSMENTS ? usage : undefined;
    }, 60_000);
    expect(counted).toEqual({ total: ASSESSMENTS, used: ASSESSMENTS, perKey: { [keys[0]!.id]: 4, [keys[1]!.id]: 4 } });

    // Killed again and restarted, the projection replays from its checkpoint: still each completion once.
    await pool.kill(second);
    const third = await pool.start();
    expect(await monthUsage(third)).toEqual(counted);
    const statement = await runCliInProcess(
      ['usage', 'statement', '--month', monthOf(new Date()), '--format', 'json', '--env', 'live'],
      env,
    );
    const total = JSON.parse(statement.stdout).totals.find((each: { item: string }) => each.item === 'completed_assessments');
    expect(total).toMatchObject({ quantity: ASSESSMENTS, included: ASSESSMENTS, overage: 0 });
  }, 240_000);
});
