import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestSituationalAssessment } from '../../src/commands/situational.js';
import { situationalStream } from '../../src/domain/situational-assessment.js';
import { loadConfig } from '../../src/settings/config.js';
import { openOperatorStores } from '../../src/wiring/environments.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { callServer, type ServerProcess, serverPool } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const SITUATION = 'Calming a frightened dog at the vet, then explaining its care to the worried family.';

/** The situational assessment's stream as the log holds it: its event types, in order. */
async function streamTypes(dataDir: string, id: string): Promise<string[]> {
  const stores = await openOperatorStores(loadConfig({ NATURE_DATA_DIR: dataDir }), 'test');
  try {
    return (await stores.events.readStream(situationalStream(id))).events.map((event) => event.type);
  } finally {
    await stores.close();
  }
}

describe('situational assessments across SIGKILL', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const pool = serverPool(() => env);
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path, NATURE_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' };
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });

  it('reads every accepted request once after a restart, and announces each under one event id', { timeout: 240_000 }, async () => {
    const args = keyCreateArgs();
    args.splice(args.indexOf('--name'), 0, '--scope', 'situational:read', '--scope', 'situational:write');
    const key = JSON.parse((await runCliInProcess(args, env)).stdout).key as string;
    const receiver = await startReceiver();
    const call = (server: ServerProcess, method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);

    const first = await pool.start();
    const endpoint = await call(first, 'POST', '/v1/nature/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['situational.assessment.completed'],
    });
    receiver.useSecret(endpoint.body.secret);
    const subject = (await call(first, 'POST', '/v1/nature/subjects', validSubject())).body;
    const assessment = (await call(first, 'POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
    await call(first, 'PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, { responses: knownResponses });
    const profile = await eventually(async () => {
      const answer = await call(first, 'GET', `/v1/nature/subjects/${subject.id}/profile`);
      return answer.status === 200 ? answer.body : undefined;
    });
    // Requests sent side by side, and the server killed the moment they are accepted: some are read, some not yet.
    const accepted = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(first, 'POST', '/v1/situational/assessments', { subject_id: subject.id, situation_context: SITUATION }),
      ),
    );
    expect(accepted.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    await pool.kill(first);

    // One more accepted while no server runs to read it: in the log, the request and nothing after it, as a server
    // killed between its 202 and the read leaves it.
    const stores = await openOperatorStores(loadConfig({ NATURE_DATA_DIR: dir.path }), 'test');
    const waiting = await requestSituationalAssessment(
      { events: stores.events, dataKeys: stores.dataKeys, projector: { waitFor: async () => true } },
      { subjectId: subject.id, profileId: profile.id, assessmentId: assessment.id, language: 'en', text: SITUATION },
      { request_id: 'req_crash' },
      new Date(),
    );
    await stores.close();
    const ids = [...accepted.map((answer) => answer.body.id as string), waiting.id];
    expect(await streamTypes(dir.path, waiting.id)).toEqual(['SituationalAssessmentRequested']);

    const second = await pool.start();
    const results = await Promise.all(
      ids.map((id) =>
        eventually(async () => {
          const answer = await call(second, 'GET', `/v1/situational/assessments/${id}`);
          return answer.body.status === 'completed' ? answer.body : undefined;
        }),
      ),
    );
    // The same text and profile: the same result, whichever server read it.
    for (const result of results) expect(result.alignment).toEqual(results[0]!.alignment);
    await receiver.waitFor(ids.length);
    await pool.kill(second);

    // A third start reads nothing again: each stream holds its request and one outcome.
    const third = await pool.start();
    const events = await eventually(async () => {
      const list = (
        (await call(third, 'GET', '/v1/nature/events?limit=100')).body.data as { id: string; type: string; data: { id: string } }[]
      ).filter((event) => event.type === 'situational.assessment.completed');
      return list.length >= ids.length ? list : undefined;
    });
    expect(events.map((event) => event.data.id).sort()).toEqual([...ids].sort());
    for (const id of ids)
      expect(await streamTypes(dir.path, id)).toEqual(['SituationalAssessmentRequested', 'SituationalAssessmentCompleted']);
    // At least once, never twice under two ids: every delivery names one of the five events, each verified.
    const delivered = receiver.received.map((received) => {
      expect(received.verified.ok).toBe(true);
      return JSON.parse(received.body) as { id: string; data: { id: string } };
    });
    expect(new Set(delivered.map((event) => event.data.id))).toEqual(new Set(ids));
    for (const event of delivered) expect(events.find((listed) => listed.data.id === event.data.id)!.id).toBe(event.id);
    await receiver.close();
  });
});
