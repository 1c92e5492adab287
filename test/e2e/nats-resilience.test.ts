import { connect } from 'nats';
import { describe, expect, it } from 'vitest';
import { DELAY_LEVELS_MS } from '../../src/adapters/nats/delays.js';
import { topics } from '../../src/ports/bus.js';
import { eventually } from '../support/eventually.js';
import { natsServerPath, startNatsServer } from '../support/nats-server.js';
import { webhookLifecycles } from '../support/webhook-lifecycle.js';

/**
 * What anyone with access to the subjects might publish there: not JSON, not an envelope, an envelope of
 * nothing the dispatcher knows (ids of its own each round: a dead letter is kept once per message id).
 */
const garbage = (round: number) =>
  [
    'not json',
    '{}',
    '{"id":42}',
    'null',
    `{"id":"evt_forged_${round}","payload":"a string"}`,
    `{"id":"evt_forged2_${round}","payload":{"event":{"id":"x"},"position":"-1"}}`,
    `{"id":"dlv_forged_${round}","payload":{"endpoint_id":"whe_nobody"}}`,
  ].map((text) => new TextEncoder().encode(text));
const ROUNDS = 3;

describe.skipIf(natsServerPath === undefined)(
  'a server on NATS against bad messages and missing streams (a real nats-server, a real server process)',
  () => {
    const lifecycles = webhookLifecycles();

    it('dead-letters garbage published to every subject it consumes while assessments complete, stays up, and delivers every real completion', async () => {
      const bus = await startNatsServer();
      lifecycles.track(bus);
      const { server, receiver, completeOne, delivered } = await lifecycles.start({ NATURE_BUS: 'nats', NATS_URL: bus.url });
      const nc = await connect({ servers: bus.url });
      const js = nc.jetstream();
      const subjects = topics.flatMap((topic) => [
        `nature.test.${topic}`,
        ...DELAY_LEVELS_MS.map((level) => `nature.test.delayed.${topic}.${level}`),
      ]);
      const poison = async (round: number) => {
        for (const subject of subjects)
          for (const [i, data] of garbage(round).entries()) await js.publish(subject, data, { msgID: `poison-${round}-${subject}-${i}` });
      };
      try {
        const completed: string[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          await poison(round);
          completed.push(await completeOne());
        }
        await eventually(async () => (delivered().size === completed.length ? true : undefined), 60_000);
        expect(delivered()).toEqual(new Set(completed));
        expect(receiver.received.every((r) => r.verified.ok)).toBe(true);
        // Every piece of garbage is kept as a dead letter, with why; none is offered again.
        const jsm = await nc.jetstreamManager();
        const expected = ROUNDS * subjects.length * garbage(0).length;
        await eventually(async () => ((await jsm.streams.info('NATURE_TEST_DEAD')).state.messages === expected ? true : undefined), 60_000);
        // A delivery is acked once its attempt is recorded, which may come a moment after the receiver has it.
        await eventually(async () => ((await jsm.streams.info('NATURE_TEST')).state.messages === 0 ? true : undefined), 60_000);
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        expect(server.process.exitCode).toBeNull();
        expect(server.output()).not.toMatch(/unhandled promise rejection/);
      } finally {
        await nc.close();
      }
    }, 180_000);

    it('delivers on when its consumers, then its stream, are deleted during a run: declared again without a restart', async () => {
      const bus = await startNatsServer();
      lifecycles.track(bus);
      const { completeOne, delivered } = await lifecycles.start({ NATURE_BUS: 'nats', NATS_URL: bus.url });
      const nc = await connect({ servers: bus.url });
      try {
        const jsm = await nc.jetstreamManager();
        const completed = [await completeOne()];
        await eventually(async () => (delivered().size === 1 ? true : undefined), 30_000);
        for (const consumer of ['events', 'deliveries']) await jsm.consumers.delete('NATURE_TEST', consumer);
        completed.push(await completeOne());
        await eventually(async () => (delivered().size === 2 ? true : undefined), 60_000);
        await jsm.streams.delete('NATURE_TEST');
        completed.push(await completeOne());
        await eventually(async () => (delivered().size === 3 ? true : undefined), 60_000);
        expect(delivered()).toEqual(new Set(completed));
        expect((await jsm.consumers.info('NATURE_TEST', 'deliveries')).config.durable_name).toBe('deliveries');
      } finally {
        await nc.close();
      }
    }, 180_000);
  },
);
