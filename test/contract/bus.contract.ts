import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/api-keys.js';
import type { Bus, BusMessage, Outcome, Topic } from '../../src/ports/bus.js';

export interface BusFixture {
  /** A bus on the fixture's storage; opening again (after close) reaches the same messages. */
  open(environment: Environment): Promise<Bus>;
  cleanup(): Promise<void>;
}

/**
 * The behaviour every bus adapter must have. The fixture's bus redelivers an unsettled message within
 * about a second (a short lease or ack wait), so the crash case runs quickly, and allows 3 deliveries.
 * An adapter that polls is opened with a poll interval longer than any test: every message below must
 * reach its consumer by a wake-up (the publish, a settled message, a retry falling due), never by a poll.
 */
export function busContract(adapter: string, create: () => Promise<BusFixture>, skip = false): void {
  describe.skipIf(skip)(`bus contract: ${adapter}`, () => {
    let fixture: BusFixture;
    const open: Bus[] = [];
    const openBus = async (environment: Environment = 'test') => {
      const bus = await fixture.open(environment);
      open.push(bus);
      return bus;
    };
    beforeEach(async () => {
      fixture = await create();
    });
    afterEach(async () => {
      for (const bus of open.splice(0)) await bus.close().catch(() => undefined);
      await fixture.cleanup();
    });

    /** Consumes until `until` says stop, answering each message with `answer`; returns what arrived. */
    async function collect(bus: Bus, topic: Topic, answer: (m: BusMessage) => Outcome, until: (seen: BusMessage[]) => boolean) {
      const seen: BusMessage[] = [];
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 15_000);
      await bus.consume(
        topic,
        async (message) => {
          seen.push(message);
          if (until(seen)) controller.abort();
          return answer(message);
        },
        { signal: controller.signal },
      );
      clearTimeout(timer);
      return seen;
    }
    const ack = (): Outcome => ({ kind: 'ack' });
    const sawMarker = (marker: string) => (seen: BusMessage[]) => seen.some((m) => m.id === marker);

    it('delivers a published message with its payload, once, and forgets it after the ack', async () => {
      const bus = await openBus();
      await bus.publish('events', 'm-1', { hello: 'world', n: [1, 2] });
      const first = await collect(bus, 'events', ack, sawMarker('m-1'));
      expect(first.map(({ id, payload, deliveryCount }) => ({ id, payload, deliveryCount }))).toEqual([
        { id: 'm-1', payload: { hello: 'world', n: [1, 2] }, deliveryCount: 1 },
      ]);
      await bus.publish('events', 'marker', {});
      const later = await collect(bus, 'events', ack, sawMarker('marker'));
      expect(later.map((m) => m.id)).toEqual(['marker']);
    });

    it('hands a message published while its consumer is idle to that consumer at once', async () => {
      const bus = await openBus();
      const consuming = collect(bus, 'events', ack, sawMarker('wake-up'));
      // Let the consumer find the topic empty and go idle before anything is published.
      await new Promise((resolve) => setImmediate(resolve));
      await bus.publish('events', 'wake-up', { n: 1 });
      expect((await consuming).map(({ id, payload }) => ({ id, payload }))).toEqual([{ id: 'wake-up', payload: { n: 1 } }]);
    });

    it('stores a message id published twice once', async () => {
      const bus = await openBus();
      await bus.publish('events', 'dup', { v: 1 });
      await bus.publish('events', 'dup', { v: 2 });
      await bus.publish('events', 'marker', {});
      const seen = await collect(bus, 'events', ack, sawMarker('marker'));
      expect(seen.filter((m) => m.id === 'dup').map((m) => m.payload)).toEqual([{ v: 1 }]);
    });

    it('delivers a retried message again after its delay, counting deliveries', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'r-1', { job: 1 });
      const seen = await collect(
        bus,
        'deliveries',
        (m) => (m.deliveryCount < 3 ? { kind: 'retry', delayMs: 100 } : ack()),
        (s) => s.length === 3,
      );
      expect(seen.map((m) => [m.id, m.deliveryCount])).toEqual([
        ['r-1', 1],
        ['r-1', 2],
        ['r-1', 3],
      ]);
    });

    it('moves a dead message to the dead letters with its reason and never delivers it again', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'd-1', { job: 'doomed' });
      await collect(bus, 'deliveries', () => ({ kind: 'dead', reason: 'retries exhausted' }), sawMarker('d-1'));
      await bus.publish('deliveries', 'marker', {});
      const later = await collect(bus, 'deliveries', ack, sawMarker('marker'));
      expect(later.map((m) => m.id)).toEqual(['marker']);
      expect(await bus.deadLetters('deliveries')).toEqual([{ id: 'd-1', payload: { job: 'doomed' }, reason: 'retries exhausted' }]);
      expect(await bus.deadLetters('events')).toEqual([]);
    });

    it('offers a message whose handler threw again, and reports the error', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'boom', {});
      const errors: string[] = [];
      const seen: BusMessage[] = [];
      const controller = new AbortController();
      await bus.consume(
        'deliveries',
        async (message) => {
          seen.push(message);
          if (message.deliveryCount === 1) throw new Error('handler failed');
          controller.abort();
          return ack();
        },
        { signal: controller.signal, onError: (error) => errors.push((error as Error).message) },
      );
      expect(seen.map((m) => m.deliveryCount)).toEqual([1, 2]);
      expect(errors).toEqual(['handler failed']);
    });

    it('moves a message to the dead letters once it has been delivered as often as allowed, never dropping it', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'stubborn', { job: 'x' });
      const seen = await collect(
        bus,
        'deliveries',
        () => ({ kind: 'retry', delayMs: 50 }),
        (s) => s.length === 3,
      );
      expect(seen.map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
      await expect
        .poll(() => bus.deadLetters('deliveries'), { timeout: 5000 })
        .toEqual([{ id: 'stubborn', payload: { job: 'x' }, reason: 'no success after 3 deliveries' }]);
    });

    it('delivers a message retried for longer than a second again after its delay', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'later', { job: 2 });
      const offeredAt: number[] = [];
      const seen = await collect(
        bus,
        'deliveries',
        (m) => {
          offeredAt.push(performance.now());
          return m.deliveryCount === 1 ? { kind: 'retry', delayMs: 1500 } : ack();
        },
        (s) => s.length === 2,
      );
      expect(seen.map(({ id, payload, deliveryCount }) => ({ id, payload, deliveryCount }))).toEqual([
        { id: 'later', payload: { job: 2 }, deliveryCount: 1 },
        { id: 'later', payload: { job: 2 }, deliveryCount: 2 },
      ]);
      // Not before it is due. (That it is not rounded up to a further hop is the hop arithmetic's unit test:
      // an upper bound on wall time here would only measure the machine.)
      expect(offeredAt[1]! - offeredAt[0]!).toBeGreaterThanOrEqual(1450);
    });

    it('offers a deferred message again without counting it as a delivery', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'deferred', {});
      // More deferrals than the fixture's 3 deliveries: none of them moves the message to the dead letters.
      let offers = 0;
      const seen = await collect(
        bus,
        'deliveries',
        () => (++offers <= 4 ? { kind: 'defer', delayMs: 50 } : ack()),
        (s) => s.length === 5,
      );
      expect(seen.map((m) => m.deliveryCount)).toEqual([1, 1, 1, 1, 1]);
      expect(await bus.deadLetters('deliveries')).toEqual([]);
    });

    it('does not deliver a message again while its handler is still at work, past the ack wait', async () => {
      const bus = await openBus();
      await bus.publish('deliveries', 'slow', {});
      const seen: string[] = [];
      let slowDone = false;
      const controller = new AbortController();
      const consuming = bus.consume(
        'deliveries',
        async (message) => {
          seen.push(message.id);
          if (message.id === 'slow') {
            // At work until the marker, published past the ack wait, has been handed on beside it.
            await expect.poll(() => seen.includes('marker'), { timeout: 60_000 }).toBe(true);
            slowDone = true;
          }
          return ack();
        },
        { signal: controller.signal, concurrency: 4 },
      );
      // Time past the fixture's lease or ack wait (what the test is about), then a publish wakes the consumer up.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await bus.publish('deliveries', 'marker', {});
      await expect.poll(() => slowDone && seen.includes('marker'), { timeout: 10_000 }).toBe(true);
      controller.abort();
      await consuming;
      expect(seen.filter((id) => id === 'slow')).toEqual(['slow']);
    });

    it('hands a fresh message on while more than a thousand wait hours for their retry', async () => {
      const bus = await openBus();
      const backlog = 1050;
      await Promise.all(Array.from({ length: backlog }, (_, i) => bus.publish('deliveries', `waiting-${i}`, { i })));
      const seen: string[] = [];
      const controller = new AbortController();
      const consuming = bus.consume(
        'deliveries',
        async (message) => {
          seen.push(message.id);
          return message.id === 'fresh' ? ack() : { kind: 'retry', delayMs: 3_600_000 };
        },
        { signal: controller.signal },
      );
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(backlog);
      // Every message of the backlog now waits an hour: none can come back during the test.
      await bus.publish('deliveries', 'fresh', {});
      await expect.poll(() => seen.includes('fresh'), { timeout: 5_000 }).toBe(true);
      controller.abort();
      await consuming;
      expect(new Set(seen).size).toBe(backlog + 1);
      expect(seen).toHaveLength(backlog + 1);
    });

    it('keeps topics apart', async () => {
      const bus = await openBus();
      await bus.publish('events', 'only-events', {});
      await bus.publish('deliveries', 'marker', {});
      const seen = await collect(bus, 'deliveries', ack, sawMarker('marker'));
      expect(seen.map((m) => m.id)).toEqual(['marker']);
    });

    it('keeps environments apart', async () => {
      const sandbox = await openBus('test');
      const production = await openBus('live');
      await sandbox.publish('events', 'sandbox-only', {});
      await production.publish('events', 'marker', {});
      const seen = await collect(production, 'events', ack, sawMarker('marker'));
      expect(seen.map((m) => m.id)).toEqual(['marker']);
      expect((await collect(sandbox, 'events', ack, sawMarker('sandbox-only'))).map((m) => m.id)).toEqual(['sandbox-only']);
    });

    it('delivers again a message whose handler never settled (the process died), to the next consumer', async () => {
      const id = `crash-${randomUUID()}`;
      const dying = await openBus();
      await dying.publish('deliveries', id, { job: 'survives' });
      const controller = new AbortController();
      const handed = new Promise<void>((resolve) => {
        void dying.consume(
          'deliveries',
          () => {
            resolve();
            return new Promise<Outcome>(() => undefined);
          },
          { signal: controller.signal },
        );
      });
      await handed;
      // The process dies: its connection or file handle goes without an ack.
      await dying.close();
      open.splice(open.indexOf(dying), 1);

      const next = await openBus();
      const seen = await collect(next, 'deliveries', ack, sawMarker(id));
      expect(seen.find((m) => m.id === id)).toMatchObject({ payload: { job: 'survives' }, deliveryCount: 2 });
    });
  });
}
