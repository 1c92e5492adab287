import { existsSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { knownResponses } from '../support/known-answers.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { callServer, serverPool } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const shared = sharedPostgres();

describe.skipIf(postgresBinDir === undefined)('the embedded bus on PostgreSQL (a PostgreSQL log, NATS not configured)', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const pool = serverPool(() => env);
  beforeEach(async () => {
    dir = tempDir();
    env = {
      NATURE_DATA_DIR: dir.path,
      NATURE_EVENT_STORE: 'postgres',
      NATURE_READ_MODELS: 'postgres',
      POSTGRES_URL: await shared.database(),
      NATURE_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
    };
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });
  afterAll(() => shared.stopShared());

  it('delivers a signed webhook for a completed assessment through the bus table in the environment’s schema', async () => {
    const key = JSON.parse((await runCliInProcess(keyCreateArgs(), env)).stdout).key as string;
    // The first attempt fails: its retry waits in the bus table too.
    const receiver = await startReceiver((n) => (n === 1 ? 503 : 200));
    const server = await pool.start();
    expect(server.output()).toMatch(/"bus":"postgres".*"msg":"Nature Profile API ready"/);
    const call = async (method: string, path: string, body?: unknown) => (await callServer(server, key, method, path, body)).body;

    const endpoint = await call('POST', '/v1/nature/webhook_endpoints', { url: receiver.url });
    receiver.useSecret(endpoint.secret);
    const subject = await call('POST', '/v1/nature/subjects', validSubject());
    const assessment = await call('POST', `/v1/nature/subjects/${subject.id}/assessments`, {});
    await call('PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, { responses: knownResponses });

    const [failed, delivered] = await receiver.waitFor(2);
    expect(delivered!.verified.ok).toBe(true);
    expect(delivered!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    const event = JSON.parse(delivered!.body);
    expect(event).toMatchObject({ type: 'nature.assessment.completed', data: { assessment_id: assessment.id, subject_id: subject.id } });
    await receiver.close();

    // The messages went through the sandbox schema's table, and nothing through a queue in the data directory.
    const sql = postgres(env.POSTGRES_URL!, { max: 1, onnotice: () => undefined });
    try {
      const rows = () =>
        sql<{ topic: string; state: string; delivery_count: number }[]>`
          SELECT topic, state, delivery_count FROM nature_sandbox.bus_messages
          WHERE topic = 'events' OR payload->>'endpoint_id' = ${endpoint.id} ORDER BY topic`;
      await expect
        .poll(async () => (await rows()).find((row) => row.topic === 'deliveries'))
        .toEqual({ topic: 'deliveries', state: 'done', delivery_count: 2 });
      expect((await rows()).filter((row) => row.topic === 'events').every((row) => row.state === 'done')).toBe(true);
      const [production] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM nature_production.bus_messages`;
      expect(production!.n).toBe('0');
    } finally {
      await sql.end();
    }
    expect(existsSync(join(dir.path, 'sandbox.events.db'))).toBe(false);
  });
});
