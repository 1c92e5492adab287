import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NatsBus } from '../../src/adapters/nats/bus.js';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import { natsServerPath, startNatsServer } from '../support/nats-server.js';
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
      const controller = new AbortController();
      const seen: string[] = [];
      const consuming = consumer.consume(
        'events',
        async (message) => {
          seen.push(message.id);
          controller.abort();
          return { kind: 'ack' };
        },
        { signal: controller.signal },
      );
      await otherProcess.publish('events', 'from-elsewhere', {});
      await consuming;
      expect(seen).toEqual(['from-elsewhere']);
    } finally {
      await otherProcess.close();
      await consumer.close();
    }
  });
});

busContract(
  'nats (a real nats-server with JetStream)',
  async () => {
    const server = await startNatsServer();
    return {
      open: (environment) => NatsBus.connect({ url: server.url, environment, ackWaitMs: 500, maxDeliver: 3 }),
      cleanup: () => server.stop(),
    };
  },
  natsServerPath === undefined,
);
