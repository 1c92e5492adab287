import { join } from 'node:path';
import { NatsBus } from '../../src/adapters/nats/bus.js';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import { natsServerPath, startNatsServer } from '../support/nats-server.js';
import { tempDir } from '../support/temp-dir.js';
import { busContract } from './bus.contract.js';

busContract('sqlite', async () => {
  const dir = tempDir();
  const file = (environment: string) => join(dir.path, `${environment}.events.db`);
  return {
    open: async (environment) => new SqliteBus(file(environment), 'FULL', { pollIntervalMs: 20, leaseMs: 500, maxDeliver: 3 }),
    cleanup: async () => dir.cleanup(),
  };
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
