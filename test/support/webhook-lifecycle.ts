import { afterEach, expect } from 'vitest';
import { mintKeysInto } from './keys.js';
import { knownResponses } from './known-answers.js';
import type { NatsServer } from './nats-server.js';
import { callServer, serverPool } from './processes.js';
import { receiverPool } from './receiver.js';
import { tempDir } from './temp-dir.js';
import { validSubject } from './test-app.js';

/**
 * Server processes on a bus, each with a sandbox key and a webhook receiver registered, for tests of what a
 * bus outage or a bad message does to completions and their webhooks. Everything started is stopped after
 * each test (the NATS servers the test hands to `track` too).
 */
export function webhookLifecycles() {
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
  return {
    /** Stops `server` after the test, unless the test stopped it (`untrack`). */
    track: (server: NatsServer) => void nats.push(server),
    untrack: (server: NatsServer) => void nats.splice(nats.indexOf(server), 1),
    /** A directory removed after the test, once the servers using it have stopped. */
    scratch(prefix: string): string {
      const dir = tempDir(prefix);
      dirs.push(dir);
      return dir.path;
    },
    /** A server process with `settings` on a fresh data directory, its key, and a receiver of its webhooks. */
    async start(settings: Record<string, string>) {
      const dataDir = tempDir();
      dirs.push(dataDir);
      env = { NATURE_DATA_DIR: dataDir.path, ...settings };
      const [key] = await mintKeysInto(dataDir.path, [{ environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'] }]);
      const server = await servers.start();
      const receiver = await receivers.start();
      const call = (method: string, path: string, body?: unknown) => callServer(server, key!, method, path, body);
      receiver.useSecret((await call('POST', '/v1/nature/webhook_endpoints', { url: receiver.url })).body.secret);
      return {
        server,
        receiver,
        /** A subject's assessment answered in full: its id, which its completion webhook carries. */
        async completeOne(): Promise<string> {
          const subject = (await call('POST', '/v1/nature/subjects', validSubject())).body;
          const assessment = (await call('POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
          const answered = await call('PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, {
            responses: knownResponses,
          });
          expect(answered.status).toBe(200);
          return assessment.id as string;
        },
        /** The assessments whose completion the receiver got. */
        delivered: () => new Set(receiver.received.map((r) => JSON.parse(r.body).data.assessment_id as string)),
      };
    },
  };
}
