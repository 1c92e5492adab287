import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { mintKeysInto } from '../support/keys.js';
import { type NatsServer, natsServerPath, startNatsServer } from '../support/nats-server.js';
import { type ServerProcess, callServer, freePort, serverPool } from '../support/processes.js';
import { receiverPool } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

/** Longer than the reconnect attempts the NATS client makes by default (10, two seconds apart). */
const OUTAGE_MS = 65_000;

const readiness = async (server: ServerProcess) => (await fetch(`${server.url}/readyz`)).status;

describe.skipIf(natsServerPath === undefined)('a NATS outage (a real nats-server, stopped and started again)', () => {
  const dirs: ReturnType<typeof tempDir>[] = [];
  const nats: NatsServer[] = [];
  let env: Record<string, string> = {};
  const servers = serverPool(() => env);
  const receivers = receiverPool();
  afterEach(async () => {
    await servers.killAll();
    for (const server of nats.splice(0)) await server.stop();
    await receivers.closeAll();
    for (const dir of dirs.splice(0)) dir.cleanup();
  });

  it(`delivers every completion after NATS was down for ${OUTAGE_MS / 1000} s, and is not ready while it is down`, async () => {
    const [dataDir, storeDir] = [tempDir(), tempDir('nature-nats-store-')];
    dirs.push(dataDir, storeDir);
    const at = { port: await freePort(), storeDir: storeDir.path };
    const first = await startNatsServer(at);
    nats.push(first);
    env = { NATURE_DATA_DIR: dataDir.path, NATURE_BUS: 'nats', NATS_URL: `nats://127.0.0.1:${at.port}`, NATURE_WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,30s' };
    const [key] = await mintKeysInto(dataDir.path, [{ environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'] }]);
    const server = await servers.start();
    const receiver = await receivers.start();
    const call = (method: string, path: string, body?: unknown) => callServer(server, key!, method, path, body);
    receiver.useSecret((await call('POST', '/v1/nature/webhook_endpoints', { url: receiver.url })).body.secret);
    const completeOne = async () => {
      const subject = (await call('POST', '/v1/nature/subjects', validSubject())).body;
      const assessment = (await call('POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
      const answered = await call('PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, { responses: knownResponses });
      expect(answered.status).toBe(200);
      return assessment.id as string;
    };
    const delivered = () => new Set(receiver.received.map((r) => JSON.parse(r.body).data.assessment_id as string));

    const completed = [await completeOne(), await completeOne()];
    await eventually(async () => (delivered().size === 2 ? true : undefined), 30_000);
    expect(await readiness(server)).toBe(200);

    await first.stop();
    nats.splice(0);
    const down = performance.now();
    await eventually(async () => ((await readiness(server)) === 503 ? true : undefined), 15_000);
    // The API goes on without the bus: completions are in the log, their webhooks held back.
    for (let i = 0; i < 3; i++) completed.push(await completeOne());
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (performance.now() - down)));
    expect(await readiness(server)).toBe(503);
    expect(delivered().size).toBe(2);

    nats.push(await startNatsServer(at));
    await eventually(async () => ((await readiness(server)) === 200 ? true : undefined), 60_000);
    await eventually(async () => (delivered().size === completed.length ? true : undefined), 90_000);
    expect(delivered()).toEqual(new Set(completed));
    expect(receiver.received.every((r) => r.verified.ok)).toBe(true);
  }, 300_000);
});
