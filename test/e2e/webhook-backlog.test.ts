import { afterEach, describe, expect, it } from 'vitest';
import type { Environments } from '../../src/wiring/environments.js';
import { type Body, client } from '../support/api-client.js';
import { eventually, untilReached } from '../support/eventually.js';
import { type NatsServer, natsServerPath, startNatsServer } from '../support/nats-server.js';
import { freePort } from '../support/processes.js';
import { receiverPool } from '../support/receiver.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const BACKLOG = 1500;

/** Every attempt recorded for the endpoint, from the read models (the list endpoint pages by 100). */
async function attemptsTo(envs: Environments, endpointId: string): Promise<Body[]> {
  const attempts: Body[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await envs.test.readModels.list('webhook_deliveries', {
      where: { endpoint_id: endpointId },
      limit: 100,
      ...(startingAfter !== undefined && { startingAfter }),
    });
    attempts.push(...page.data);
    if (!page.hasMore) return attempts;
    startingAfter = page.data.at(-1)!.id;
  }
}

const buses: [string, boolean, () => Promise<{ settings: Record<string, string>; stop(): Promise<void> }>][] = [
  ['embedded (SQLite)', false, async () => ({ settings: {}, stop: async () => undefined })],
  [
    'NATS (a real nats-server)',
    natsServerPath === undefined,
    async () => {
      const server: NatsServer = await startNatsServer();
      return { settings: { NATURE_BUS: 'nats', NATS_URL: server.url }, stop: () => server.stop() };
    },
  ],
];

describe.each(buses)('webhooks on the %s bus', (_name, skip, backend) => {
  const receivers = receiverPool();
  let app: TestApp | undefined;
  let stopBackend: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await app?.close();
    await stopBackend?.();
    await receivers.closeAll();
  });

  it.skipIf(skip)(
    `deliver a new event while ${BACKLOG} deliveries to a dead endpoint wait hours for their retry`,
    async () => {
      const { settings, stop } = await backend();
      stopBackend = stop;
      app = await openTestApp({
        ...settings,
        // One retry, ten hours after the first attempt: none of the backlog can come back during the test.
        NATURE_WEBHOOK_RETRY_SCHEDULE: '10h',
        NATURE_RATE_LIMIT_PER_SECOND: '1000000',
        NATURE_RATE_LIMIT_BURST: '1000000',
        LOG_LEVEL: 'warn',
      });
      const api = client(app, (await app.mint('test', 'sk')).raw);
      // Nothing listens there: every POST is refused.
      const dead = await api.register(`http://127.0.0.1:${await freePort()}/dead`);
      const healthy = await receivers.start();
      healthy.useSecret((await api.register(healthy.url)).secret);

      await api.completeAssessment();
      const [first] = await healthy.waitFor(1);
      const eventId = JSON.parse(first!.body).id as string;
      // The completion's own delivery to the dead endpoint, and redeliveries of it up to the backlog.
      for (let queued = 1; queued < BACKLOG; queued += 50) {
        const batch = Array.from({ length: Math.min(50, BACKLOG - queued) }, () =>
          api.call('POST', `/v1/nature/events/${eventId}/redeliver`, { endpoint_id: dead.id }),
        );
        for (const { status } of await Promise.all(batch)) expect(status).toBe(202);
      }
      // However long a busy machine takes to try them all: it fails only if the attempts stop coming.
      await untilReached(async () => (await attemptsTo(app!.envs, dead.id as string)).length, BACKLOG);
      const backlog = await attemptsTo(app.envs, dead.id as string);
      expect(new Set(backlog.map((a) => [a.attempt, a.outcome].join()))).toEqual(new Set(['1,retrying']));

      const started = performance.now();
      const { assessmentId } = await api.completeAssessment();
      const fresh = await eventually(
        async () => healthy.received.find((r) => JSON.parse(r.body).data.assessment_id === assessmentId),
        60_000,
      );
      const tookMs = Math.round(performance.now() - started);
      console.info(
        `[webhook backlog, ${_name}] the new event reached the healthy endpoint ${tookMs} ms after its completing PATCH was sent, with ${BACKLOG} deliveries in back-off`,
      );
      expect(fresh.verified.ok).toBe(true);

      // The backlog is still there, untouched: one attempt each, their retries due in hours, none dead.
      const after = (await attemptsTo(app.envs, dead.id as string)).filter((a) => a.event_id === eventId);
      expect(after).toHaveLength(BACKLOG);
      expect(
        after.every((a) => a.attempt === 1 && a.outcome === 'retrying' && Date.parse(a.next_attempt_at) - Date.now() > 9 * 3_600_000),
      ).toBe(true);
      expect(await app.envs.test.bus.deadLetters('deliveries')).toEqual([]);
    },
    1_200_000,
  );
});
