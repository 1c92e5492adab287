import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { natsServerPath, startNatsServer } from '../support/nats-server.js';
import { freePort, type ServerProcess } from '../support/processes.js';
import { webhookLifecycles } from '../support/webhook-lifecycle.js';

/** Longer than the reconnect attempts the NATS client makes by default (10, two seconds apart). */
const OUTAGE_MS = 65_000;

/** What /readyz answers: its status code and the `status` in its body. */
const readiness = async (server: ServerProcess) => {
  const response = await fetch(`${server.url}/readyz`);
  return `${response.status} ${((await response.json()) as { status: string }).status}`;
};

describe.skipIf(natsServerPath === undefined)('a NATS outage (a real nats-server, stopped and started again)', () => {
  const lifecycles = webhookLifecycles();

  it(`delivers every completion after NATS was down for ${OUTAGE_MS / 1000} s, and stays in rotation ("degraded") while it is down`, async () => {
    // Removed by the lifecycles after the NATS server has stopped: removing it under a running server races its writes.
    const at = { port: await freePort(), storeDir: lifecycles.scratch('nature-nats-store-') };
    const first = await startNatsServer(at);
    lifecycles.track(first);
    const { server, receiver, completeOne, delivered } = await lifecycles.start({
      NATURE_BUS: 'nats',
      NATS_URL: `nats://127.0.0.1:${at.port}`,
      NATURE_WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,30s',
    });

    const completed = [await completeOne(), await completeOne()];
    await eventually(async () => (delivered().size === 2 ? true : undefined), 30_000);
    expect(await readiness(server)).toBe('200 ready');

    await first.stop();
    lifecycles.untrack(first);
    const down = performance.now();
    await eventually(async () => ((await readiness(server)) === '200 degraded' ? true : undefined), 15_000);
    // The API goes on without the bus: completions are in the log, their webhooks held back.
    for (let i = 0; i < 3; i++) completed.push(await completeOne());
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (performance.now() - down)));
    expect(await readiness(server)).toBe('200 degraded');
    expect(delivered().size).toBe(2);

    lifecycles.track(await startNatsServer(at));
    await eventually(async () => ((await readiness(server)) === '200 ready' ? true : undefined), 60_000);
    await eventually(async () => (delivered().size === completed.length ? true : undefined), 90_000);
    expect(delivered()).toEqual(new Set(completed));
    expect(receiver.received.every((r) => r.verified.ok)).toBe(true);
  }, 300_000);
});
