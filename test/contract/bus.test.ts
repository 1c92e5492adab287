import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect as connectNats } from 'nats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NatsBus } from '../../src/adapters/nats/bus.js';
import type { NatsLink } from '../../src/adapters/nats/connection.js';
import { DELAY_LEVELS_MS } from '../../src/adapters/nats/delays.js';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import type { Bus, Outcome } from '../../src/ports/bus.js';
import { type NatsServer, natsFixtures, natsServerPath, startNatsServer } from '../support/nats-server.js';
import { freePort } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { busContract } from './bus.contract.js';

/** Longer than any test: the contract's messages must arrive by wake-ups. */
const NEVER_POLLS = 3_600_000;

busContract('sqlite', async () => {
  const dir = tempDir();
  const file = (environment: string) => join(dir.path, `${environment}.events.db`);
  return {
    open: async (environment) => new SqliteBus(file(environment), 'FULL', { pollIntervalMs: NEVER_POLLS, leaseMs: 500, maxDeliver: 3 }),
    cleanup: async () => dir.cleanup(),
  };
});

/** Consumes `bus` until its first message, acked, after `publish`: the ids the consumer saw (one). */
async function firstDelivered(bus: SqliteBus, publish: () => Promise<void>): Promise<string[]> {
  const controller = new AbortController();
  const seen: string[] = [];
  const consuming = bus.consume(
    'events',
    async (message) => {
      seen.push(message.id);
      controller.abort();
      return { kind: 'ack' };
    },
    { signal: controller.signal },
  );
  await publish();
  await consuming;
  return seen;
}

describe('sqlite bus', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('finds a message published through another connection to its file (another process) at its next poll', async () => {
    const file = join(dir.path, 'test.events.db');
    const consumer = new SqliteBus(file, 'FULL', { pollIntervalMs: 20 });
    // Another connection to the file: its publish wakes nothing in the consumer's process.
    const otherProcess = new SqliteBus(file, 'FULL', { pollIntervalMs: NEVER_POLLS });
    try {
      expect(await firstDelivered(consumer, () => otherProcess.publish('events', 'from-elsewhere', {}))).toEqual(['from-elsewhere']);
    } finally {
      await otherProcess.close();
      await consumer.close();
    }
  });

  it('forgets a done message after the duplicate window: the same id published again is delivered again, before it is not', async () => {
    const file = join(dir.path, 'test.events.db');
    // A window longer than the test: a republished id is dropped.
    const keeping = new SqliteBus(file, 'FULL', { pollIntervalMs: 20 });
    try {
      expect(await firstDelivered(keeping, () => keeping.publish('events', 'once', {}))).toEqual(['once']);
      expect(
        await firstDelivered(keeping, async () => {
          await keeping.publish('events', 'once', {});
          await keeping.publish('events', 'next', {});
        }),
      ).toEqual(['next']);
    } finally {
      await keeping.close();
    }
    // A window of nothing: the consumer deletes the done messages, so the same id is new again.
    const forgetting = new SqliteBus(file, 'FULL', { pollIntervalMs: 20, duplicateWindowMs: 0 });
    try {
      expect(await firstDelivered(forgetting, () => forgetting.publish('events', 'once', {}))).toEqual(['once']);
    } finally {
      await forgetting.close();
    }
  });
});

busContract(
  'nats (a real nats-server with JetStream)',
  async () => {
    const server = await startNatsServer();
    return {
      open: (environment) => NatsBus.connect({ access: server.access, environment, ackWaitMs: 500, maxDeliver: 3 }),
      cleanup: () => server.stop(),
    };
  },
  natsServerPath === undefined,
);

describe.skipIf(natsServerPath === undefined)('nats bus (a real nats-server with JetStream)', () => {
  const fixtures = natsFixtures();
  const { servers } = fixtures;
  const start = (at?: { port: number; storeDir: string }) => fixtures.start(at);
  /** A bus on `server`, or on the URL `target` with no credentials. */
  const connect = async (target: NatsServer | string, options: Partial<Parameters<typeof NatsBus.connect>[0]> = {}) => {
    const access = typeof target === 'string' ? { url: target, auth: { kind: 'none' as const }, tls: undefined } : target.access;
    return fixtures.keep(await NatsBus.connect({ access, environment: 'test', ackWaitMs: 2000, ...options }));
  };
  /** Consumes `topic` in the background, acking all, until the test ends; what arrived, in order. */
  const consumeAll = (bus: Bus, answer: (id: string) => Outcome = () => ({ kind: 'ack' })) => {
    const seen: string[] = [];
    const controller = new AbortController();
    // Resumed after a failure, as the dispatcher does.
    const loop = async () => {
      while (!controller.signal.aborted) {
        await bus
          .consume(
            'deliveries',
            async (message) => {
              seen.push(message.id);
              return answer(message.id);
            },
            { signal: controller.signal },
          )
          .catch(() => new Promise((resolve) => setTimeout(resolve, 250)));
      }
    };
    const running = loop();
    return {
      seen,
      stop: () => {
        controller.abort();
        return running;
      },
    };
  };

  it('consumes again after the server was down and came back on its store, messages kept and published since included', async () => {
    const at = { port: await freePort(), storeDir: fixtures.scratch('nature-nats-store-') };
    const first = await start(at);
    const bus = await connect(first);
    // One message waits in the delay levels through the outage, due about when the server is back.
    let retried = false;
    const consumer = consumeAll(bus, (id) => {
      if (id !== 'waiting' || retried) return { kind: 'ack' };
      retried = true;
      return { kind: 'retry', delayMs: 3000 };
    });
    await bus.publish('deliveries', 'waiting', {});
    await expect.poll(() => consumer.seen).toEqual(['waiting']);

    await first.stop();
    servers.splice(servers.indexOf(first), 1);
    await expect(bus.ping()).rejects.toThrow();
    await expect(bus.publish('deliveries', 'during', {})).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 2000));

    await start(at);
    await expect
      .poll(
        () =>
          bus.ping().then(
            () => 'ok',
            () => 'down',
          ),
        { timeout: 15_000 },
      )
      .toBe('ok');
    await bus.publish('deliveries', 'after', {});
    await expect.poll(() => [...consumer.seen].sort(), { timeout: 20_000 }).toEqual(['after', 'waiting', 'waiting']);
    await consumer.stop();
  });

  it('replaces a connection that closed for good, and consumes on the new one', async () => {
    const server = await start();
    const bus = await connect(server);
    const consumer = consumeAll(bus);
    await bus.publish('deliveries', 'before', {});
    await expect.poll(() => consumer.seen).toEqual(['before']);
    // What the client does when the server refuses it for good: close, with no reconnect.
    await (bus as unknown as { link: NatsLink }).link.nc.close();
    await expect
      .poll(
        () =>
          bus.publish('deliveries', 'after', {}).then(
            () => 'published',
            () => 'not yet',
          ),
        { timeout: 15_000 },
      )
      .toBe('published');
    await expect.poll(() => consumer.seen, { timeout: 15_000 }).toEqual(['before', 'after']);
    await consumer.stop();
  });

  it('keeps the newest dead letters within the limits', async () => {
    const server = await start();
    const bus = await connect(server, { deadLetters: { maxAgeMs: 3_600_000, maxMessages: 2 } });
    for (const id of ['d-1', 'd-2', 'd-3']) await bus.publish('deliveries', id, { id });
    const consumer = consumeAll(bus, () => ({ kind: 'dead', reason: 'no' }));
    await expect.poll(() => consumer.seen).toHaveLength(3);
    await consumer.stop();
    await expect
      .poll(() => bus.deadLetters('deliveries'))
      .toEqual([
        { id: 'd-2', payload: { id: 'd-2' }, reason: 'no' },
        { id: 'd-3', payload: { id: 'd-3' }, reason: 'no' },
      ]);
  });

  it('starts beside replicas starting at the same moment on a new server: each declares the streams or finds them declared', async () => {
    const server = await start();
    const buses = await Promise.all(Array.from({ length: 6 }, () => connect(server)));
    const consumer = consumeAll(buses[0]!);
    await buses[5]!.publish('deliveries', 'from-the-last', {});
    await expect.poll(() => consumer.seen).toEqual(['from-the-last']);
    await consumer.stop();
  });

  it('asks for the configured stream copies: more than one needs a NATS cluster', async () => {
    const server = await start();
    await expect(connect(server, { replicas: 2 })).rejects.toThrow(
      /refused the bus's streams: replicas > 1 not supported in non-clustered mode/,
    );
  });

  it('fails at start-up within its timeout, in one line naming the server without credentials, when NATS cannot be reached', async () => {
    const nobody = await freePort();
    await expect(connect(`nats://svc:hunter2@127.0.0.1:${nobody}`)).rejects.toThrow(
      new RegExp(`^cannot reach NATS at 127\\.0\\.0\\.1:${nobody}: `),
    );
    await expect(connect(`nats://svc:hunter2@127.0.0.1:${nobody}`)).rejects.not.toThrow(/hunter2/);
    // A server that accepts the connection and never speaks.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      await expect(connect(`nats://127.0.0.1:${port}`, { connectTimeoutMs: 1000 })).rejects.toThrow(/NATS at 127\.0\.0\.1:\d+/);
    } finally {
      silent.close();
    }
  });

  /** A plain client of the server, as an operator's tools or another program are. */
  const outsider = async (server: NatsServer) => {
    const nc = await connectNats({ servers: server.url });
    closers.push(() => nc.close());
    return { nc, js: nc.jetstream(), jsm: await nc.jetstreamManager() };
  };
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('sends what it cannot decode, on its topic or any delay level, to the dead letters with the reason, and goes on delivering', async () => {
    const server = await start();
    const bus = await connect(server);
    const consumer = consumeAll(bus);
    const { js } = await outsider(server);
    const subjects = ['nature.test.deliveries', ...DELAY_LEVELS_MS.map((level) => `nature.test.delayed.deliveries.${level}`)];
    const garbage = ['not json', '{}', '{"id":1}', 'null', '{"id":"","payload":{}}'].map((text) => new TextEncoder().encode(text));
    garbage.push(Uint8Array.from([0xff, 0xfe, 0x00]));
    for (const subject of subjects)
      for (const [i, data] of garbage.entries()) await js.publish(subject, data, { msgID: `garbage-${subject}-${i}` });
    await bus.publish('deliveries', 'real', { n: 1 });
    await expect.poll(() => consumer.seen).toEqual(['real']);
    await expect.poll(async () => (await bus.deadLetters('deliveries')).length, { timeout: 15_000 }).toBe(subjects.length * garbage.length);
    const letters = await bus.deadLetters('deliveries');
    expect(
      letters.every((letter) =>
        /^undecodable message on nature\.test\.(delayed\.deliveries\.\d+|deliveries): not (JSON|a message of this bus)/.test(letter.reason),
      ),
    ).toBe(true);
    expect(letters.map((letter) => letter.payload)).toContain('not json');
    await consumer.stop();
  });

  it('declares again a consumer deleted under it and goes on consuming, and a stream deleted under it at the next publish', async () => {
    const server = await start();
    const bus = await connect(server);
    const consumer = consumeAll(bus);
    await bus.publish('deliveries', 'one', {});
    await expect.poll(() => consumer.seen).toEqual(['one']);
    const { jsm } = await outsider(server);
    await jsm.consumers.delete('NATURE_TEST', 'deliveries');
    await bus.publish('deliveries', 'two', {});
    await expect.poll(() => consumer.seen, { timeout: 20_000 }).toEqual(['one', 'two']);
    await jsm.streams.delete('NATURE_TEST');
    await bus.publish('deliveries', 'three', {});
    await expect.poll(() => consumer.seen, { timeout: 20_000 }).toEqual(['one', 'two', 'three']);
    await consumer.stop();
  });

  it('bounds its work streams: a full one refuses a publish rather than drop a message, and none keeps a message past the age limit', async () => {
    const server = await start();
    const bus = await connect(server, { limits: { maxBytes: 4096, maxAgeMs: 3_600_000 } });
    const { jsm } = await outsider(server);
    for (const stream of ['NATURE_TEST', 'NATURE_TEST_DELAYED']) {
      const { config } = await jsm.streams.info(stream);
      expect({ max_bytes: config.max_bytes, max_age: config.max_age, discard: config.discard }).toEqual({
        max_bytes: 4096,
        max_age: 3_600_000 * 1_000_000,
        discard: 'new',
      });
    }
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++)
      outcomes.push(
        await bus.publish('deliveries', `big-${i}`, 'x'.repeat(600)).then(
          () => 'stored',
          (error: Error) => error.message,
        ),
      );
    expect(outcomes[0]).toBe('stored');
    expect(outcomes.at(-1)).toMatch(/maximum bytes exceeded/);
    expect(outcomes.filter((outcome) => outcome === 'stored').length).toBeLessThan(outcomes.length);
  });
});
