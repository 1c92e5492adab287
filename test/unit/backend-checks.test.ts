import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UnsupportedServerError } from '../../src/adapters/eventstoredb/server-version.js';
import { assessDeployment } from '../../src/adapters/mongodb/deployment.js';
import { loadConfig } from '../../src/settings/config.js';
import { BackendTimeoutError, within } from '../../src/support/backend-timeout.js';
import { urlHosts, withoutCredentials } from '../../src/support/backend-urls.js';
import { backendProblem, OperatorError } from '../../src/support/operator-errors.js';
import { checkBackends } from '../../src/wiring/backend-checks.js';
import { natsServerPath, startNatsServer } from '../support/nats-server.js';
import { freePort } from '../support/processes.js';

describe('what an operator is told about a backend URL', () => {
  it('shows a URL without its user and password', () => {
    expect(withoutCredentials('mongodb://nature:p%40ss@db1:27017,db2:27017/?replicaSet=rs0')).toBe(
      'mongodb://db1:27017,db2:27017/?replicaSet=rs0',
    );
    expect(withoutCredentials('esdb://admin:changeit@node1:2113?tls=false')).toBe('esdb://node1:2113?tls=false');
    expect(withoutCredentials('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('names the hosts of a URL, and nothing else of it', () => {
    expect(urlHosts('esdb://admin:changeit@node1:2113,node2:2113?tls=false')).toBe('node1:2113,node2:2113');
    expect(urlHosts('mongodb+srv://nature:secret@cluster0.example.net/nature?retryWrites=true')).toBe('cluster0.example.net');
    expect(urlHosts('tls://nats.example.com:4222')).toBe('nats.example.com:4222');
  });

  it("scrubs the URL's password from a driver's message, encoded or not", () => {
    const backend = { name: 'MongoDB', variable: 'MONGODB_URL', url: 'mongodb://nature:p%40ss@db1:27017/' };
    const line = backendProblem(backend, new Error('Authentication failed for nature:p@ss (and p%40ss)'), 10_000);
    expect(line).toBe('MongoDB at db1:27017 (MONGODB_URL) did not answer: Authentication failed for ***:*** (and ***)');
  });

  it("says what is wrong with a server that answered but that the service cannot rely on, without the URL's credentials", () => {
    const eventStore = { name: 'EventStoreDB', variable: 'EVENTSTORE_URL', url: 'esdb://admin:changeit@10.0.0.5:2113?tls=false' };
    expect(backendProblem(eventStore, new UnsupportedServerError('24.10.4'), 10_000)).toMatch(
      /^EventStoreDB at 10\.0\.0\.5:2113 \(EVENTSTORE_URL\) runs version 24\.10\.4; the service needs EventStoreDB 24\.10\.5 or newer/,
    );
    const mongo = { name: 'MongoDB', variable: 'MONGODB_URL', url: 'mongodb://nature:s3cret@db1:27017/' };
    const standalone = (() => {
      try {
        return assessDeployment({ buildInfo: { version: '8.0.13' }, hello: {} }, false);
      } catch (error) {
        return error;
      }
    })();
    const line = backendProblem(mongo, standalone, 10_000);
    expect(line).toMatch(/^MongoDB at db1:27017 \(MONGODB_URL\) is a standalone server: /);
    expect(line).not.toMatch(/s3cret|did not answer/);
  });

  it('says how long it waited for a server that never answered', async () => {
    const never = new Promise<void>(() => {});
    const error = await within(50, never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BackendTimeoutError);
    expect(backendProblem({ name: 'EventStoreDB', variable: 'EVENTSTORE_URL', url: 'esdb://10.9.9.9:2113' }, error, 50)).toBe(
      'EventStoreDB at 10.9.9.9:2113 (EVENTSTORE_URL) did not answer within 50 ms; check the host and port, and that the server runs',
    );
  });
});

describe.skipIf(natsServerPath === undefined)('checking the NATS server at start-up (a real nats-server)', () => {
  const config = (url: string) => loadConfig({ NATURE_BUS: 'nats', NATS_URL: url, NATURE_BACKEND_TIMEOUT_MS: '3000' });

  it('passes a server with JetStream', async () => {
    const server = await startNatsServer();
    try {
      await expect(checkBackends(config(server.url))).resolves.toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it('fails, naming NATS and its host, on a server without JetStream, which the bus needs', async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(natsServerPath!, ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const check = (chunk: Buffer) => {
          output += String(chunk);
          if (output.includes('Server is ready')) resolve();
        };
        child.stdout?.on('data', check);
        child.stderr?.on('data', check);
        child.once('exit', () => reject(new Error(`nats-server exited:\n${output}`)));
      });
      const failure = await checkBackends(config(`nats://127.0.0.1:${port}`)).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OperatorError);
      expect((failure as Error).message).toMatch(
        new RegExp(`^NATS at 127\\.0\\.0\\.1:${port} \\(NATS_URL\\) did not answer: .*jetstream`, 'i'),
      );
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('leaves the bus out for operator commands, which never use it', async () => {
    const port = await freePort();
    await expect(checkBackends(config(`nats://127.0.0.1:${port}`), { bus: false, eventStore: true })).resolves.toBeUndefined();
    await expect(checkBackends(config(`nats://127.0.0.1:${port}`))).rejects.toThrow(
      /^NATS at 127\.0\.0\.1:\d+ \(NATS_URL\) did not answer: CONNECTION_REFUSED$/,
    );
  });

  it('leaves the event store out for the key commands, which never use it', async () => {
    const port = await freePort();
    const onEventStoreDb = loadConfig({
      NATURE_EVENT_STORE: 'eventstoredb',
      EVENTSTORE_URL: `esdb://127.0.0.1:${port}?tls=false`,
      NATURE_BACKEND_TIMEOUT_MS: '3000',
    });
    await expect(checkBackends(onEventStoreDb, { bus: false, eventStore: false })).resolves.toBeUndefined();
    await expect(checkBackends(onEventStoreDb, { bus: false, eventStore: true })).rejects.toThrow(
      /^EventStoreDB at 127\.0\.0\.1:\d+ \(EVENTSTORE_URL\) did not answer/,
    );
  });
});
