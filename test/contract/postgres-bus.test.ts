import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresBus } from '../../src/adapters/postgres/bus.js';
import type { Bus, Outcome } from '../../src/ports/bus.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { busContract } from './bus.contract.js';

const missing = postgresBinDir === undefined;
const shared = sharedPostgres();
afterAll(() => shared.stopShared());

/** Longer than any test: the contract's messages must arrive by wake-ups (NOTIFY, a settled message, a due time). */
const NEVER_POLLS = 3_600_000;

/** Each test's buses in schemas of their own (one per environment), on the file's one database. */
let tests = 0;
busContract(
  'postgres',
  async () => {
    tests += 1;
    const url = await shared.database();
    const prefix = `bus_${tests}`;
    return {
      open: (environment) =>
        PostgresBus.connect(url, `${prefix}_${environment}`, { pollIntervalMs: NEVER_POLLS, claimMs: 500, maxDeliver: 3 }),
      cleanup: async () => undefined,
    };
  },
  missing,
);

describe.skipIf(missing)('postgres bus', () => {
  const buses: Bus[] = [];
  const connect = async (schema: string, options: Parameters<typeof PostgresBus.connect>[2] = {}) => {
    const bus = await PostgresBus.connect(await shared.database(), schema, options);
    buses.push(bus);
    return bus;
  };
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close();
  });

  /** Consumes `topic` in the background, starting over after a failure as the dispatcher does, until stopped. */
  const consumeAll = (bus: Bus, handler: (id: string) => Promise<Outcome>, concurrency = 8) => {
    const controller = new AbortController();
    const failures: unknown[] = [];
    const loop = async () => {
      while (!controller.signal.aborted)
        await bus
          .consume('deliveries', (message) => handler(message.id), { signal: controller.signal, concurrency })
          .catch((error: unknown) => {
            failures.push(error);
            return new Promise((resolve) => setTimeout(resolve, 100));
          });
    };
    const running = loop();
    return {
      failures,
      stop: () => {
        controller.abort();
        return running;
      },
    };
  };

  it('shares its messages between two replicas (two pools): each handled, none by both at once', async () => {
    const [first, second] = [await connect('shared_a'), await connect('shared_a')];
    const inHands = new Set<string>();
    const overlaps: string[] = [];
    const handledBy: Record<string, string[]> = { first: [], second: [] };
    const handler = (name: string) => async (id: string) => {
      if (inHands.has(id)) overlaps.push(id);
      inHands.add(id);
      // At work over a few turns of the event loop, long enough for the other replica to try to claim it.
      await new Promise((resolve) => setTimeout(resolve, 1 + (id.length % 5)));
      inHands.delete(id);
      handledBy[name]!.push(id);
      return { kind: 'ack' } as const;
    };
    const consumers = [consumeAll(first, handler('first'), 4), consumeAll(second, handler('second'), 4)];
    const ids = Array.from({ length: 300 }, (_, i) => `m-${i}`);
    // Published through both, as two replicas' dispatchers do.
    await Promise.all(ids.map((id, i) => (i % 2 === 0 ? first : second).publish('deliveries', id, { i })));
    await expect.poll(() => handledBy.first!.length + handledBy.second!.length, { timeout: 30_000 }).toBe(ids.length);
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    expect(overlaps).toEqual([]);
    expect([...handledBy.first!, ...handledBy.second!].sort()).toEqual([...ids].sort());
    expect(handledBy.first!.length).toBeGreaterThan(0);
    expect(handledBy.second!.length).toBeGreaterThan(0);
    expect(consumers.flatMap((consumer) => consumer.failures)).toEqual([]);
  });

  it('wakes a consumer that never polls by NOTIFY when another replica (another pool) publishes', async () => {
    const [consuming, publishing] = [await connect('notified', { pollIntervalMs: NEVER_POLLS }), await connect('notified')];
    const seen: string[] = [];
    const consumer = consumeAll(consuming, async (id) => {
      seen.push(id);
      return { kind: 'ack' };
    });
    for (const id of ['one', 'two', 'three']) {
      await publishing.publish('deliveries', id, {});
      await expect.poll(() => seen.includes(id)).toBe(true);
    }
    await consumer.stop();
    expect(seen).toEqual(['one', 'two', 'three']);
  });

  it('goes on consuming after the server dropped its connections, woken by a publish from another replica after it', async () => {
    // A query the driver leaves unanswered on a dropped connection fails after 5 s, and the consumer starts again.
    const bus = await connect('healing', { pollIntervalMs: NEVER_POLLS, answerWithinMs: 5_000 });
    const publishing = await connect('healing');
    const seen: string[] = [];
    const consumer = consumeAll(bus, async (id) => {
      seen.push(id);
      return { kind: 'ack' };
    });
    await publishing.publish('deliveries', 'before', {});
    await expect.poll(() => seen).toEqual(['before']);
    // What a server restart or a failover does to the service's connections, the listening one among them.
    const admin = postgres(await shared.database(), { max: 1, onnotice: () => undefined });
    try {
      const killed = await admin`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'nature-profile-api' AND pid <> pg_backend_pid()`;
      expect(killed.length).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await expect
      .poll(
        () =>
          publishing.publish('deliveries', 'after', {}).then(
            () => 'published',
            () => 'not yet',
          ),
        { timeout: 45_000 },
      )
      .toBe('published');
    // The driver connects again after a back-off that grows with each connection lost with an error (3^n / 100 s,
    // at most 20 s, per pool): generous bounds, so a loaded machine does not fail the test.
    await expect.poll(() => seen, { timeout: 45_000 }).toEqual(['before', 'after']);
    await consumer.stop();
  });

  it('forgets a done message after the duplicate window: the same id published again is delivered again', async () => {
    const bus = await connect('forgetting', { pollIntervalMs: NEVER_POLLS, duplicateWindowMs: 0 });
    const seen: string[] = [];
    const consumer = consumeAll(bus, async (id) => {
      seen.push(id);
      return { kind: 'ack' };
    });
    await bus.publish('deliveries', 'once', {});
    await expect.poll(() => seen).toEqual(['once']);
    // Done, and past its window of nothing: deleted by the consumer's next pass, after which the id is new again.
    const republished = async () => {
      await bus.publish('deliveries', 'once', {});
      return seen.length;
    };
    await expect.poll(republished, { timeout: 10_000 }).toBeGreaterThan(1);
    await consumer.stop();
    expect(new Set(seen)).toEqual(new Set(['once']));
  });

  it('keeps a message that was delivered as often as allowed without a verdict from coming back: it goes dead', async () => {
    const bus = await connect('crash_loop', { pollIntervalMs: NEVER_POLLS, claimMs: 300, maxDeliver: 2 });
    await bus.publish('deliveries', 'poison', { job: 'kills its process' });
    // Two processes die with it in their hands (their claims lapse) ...
    for (let death = 0; death < 2; death++) {
      const dying = await PostgresBus.connect(await shared.database(), 'crash_loop', {
        pollIntervalMs: NEVER_POLLS,
        claimMs: 300,
        maxDeliver: 2,
      });
      const controller = new AbortController();
      await new Promise<void>((handed) => {
        void dying.consume(
          'deliveries',
          () => {
            handed();
            return new Promise<Outcome>(() => undefined);
          },
          { signal: controller.signal },
        );
      });
      await dying.close();
    }
    // ... and the third finds it over the limit: dead, its handler never called.
    const handled: string[] = [];
    const consumer = consumeAll(bus, async (id) => {
      handled.push(id);
      return { kind: 'ack' };
    });
    await expect
      .poll(() => bus.deadLetters('deliveries'), { timeout: 10_000 })
      .toEqual([{ id: 'poison', payload: { job: 'kills its process' }, reason: 'no success after 2 deliveries' }]);
    await consumer.stop();
    expect(handled).toEqual([]);
  });
});
