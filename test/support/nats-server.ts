import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Bus } from '../../src/ports/bus.js';
import type { NatsAccess } from '../../src/settings/config.js';
import { freePort } from './processes.js';
import { tempDir } from './temp-dir.js';

/** The nats-server binary, or undefined when the machine lacks it (then NATS tests are skipped, loudly). */
export const natsServerPath: string | undefined = (() => {
  const found = spawnSync('sh', ['-c', 'command -v nats-server || ls /usr/sbin/nats-server 2>/dev/null'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')[0];
  return found ? found : undefined;
})();

if (natsServerPath === undefined) {
  console.error(
    '\n!!! NATS TESTS SKIPPED: nats-server is not installed on this machine. Install it (apt-get install -y nats-server;\n' +
      '!!! .ci/run does) and run npm test again. The skipped tests are reported as skipped, never as passed.\n',
  );
}

export interface NatsServer {
  url: string;
  /** The URL with no credentials and no TLS files: what the bus is given for a server that asks for neither. */
  access: NatsAccess;
  /** Rewrites the configuration's added part (`config` of startNatsServer) and has the server reload it (SIGHUP). */
  reload(config: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real nats-server with JetStream on a free loopback port and a fresh store directory; `at` restarts one
 * on its port and store directory (which `stop` then leaves in place). `config` adds to its configuration
 * file (an `authorization` or `tls` block, say).
 */
export async function startNatsServer(at?: { port: number; storeDir: string }, config = ''): Promise<NatsServer> {
  if (natsServerPath === undefined) throw new Error('nats-server is not installed');
  const port = at?.port ?? (await freePort());
  const dir = at ? { path: at.storeDir, cleanup: () => undefined } : tempDir('nature-nats-');
  const file = join(dir.path, 'nats-server.conf');
  const write = (added: string) =>
    writeFileSync(file, `listen: "127.0.0.1:${port}"\njetstream { store_dir: ${JSON.stringify(dir.path)} }\n${added}\n`);
  write(config);
  const child: ChildProcess = spawn(natsServerPath, ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${output}`)), 10_000);
    const check = () => {
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', () => reject(new Error(`nats-server exited:\n${output}`)));
  });
  const url = `nats://127.0.0.1:${port}`;
  return {
    url,
    access: { url, auth: { kind: 'none' }, tls: undefined },
    async reload(added) {
      write(added);
      const reloaded = new Promise<void>((resolve) => {
        const check = () => output.includes('Reloaded server configuration') && resolve();
        child.stdout?.on('data', check);
        child.stderr?.on('data', check);
      });
      output = '';
      child.kill('SIGHUP');
      await reloaded;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      dir.cleanup();
    },
  };
}

/**
 * For a describe block of NATS tests: servers started with `start` (as startNatsServer), buses handed to `keep`
 * and scratch directories from `scratch`, all stopped or removed after each test.
 */
export function natsFixtures() {
  const servers: NatsServer[] = [];
  const buses: Bus[] = [];
  const dirs: ReturnType<typeof tempDir>[] = [];
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close().catch(() => undefined);
    for (const server of servers.splice(0)) await server.stop();
    for (const dir of dirs.splice(0)) dir.cleanup();
  });
  return {
    servers,
    async start(at?: { port: number; storeDir: string }, config?: string): Promise<NatsServer> {
      const server = await startNatsServer(at, config);
      servers.push(server);
      return server;
    },
    keep<T extends Bus>(bus: T): T {
      buses.push(bus);
      return bus;
    },
    scratch(prefix = 'nature-nats-'): string {
      const dir = tempDir(prefix);
      dirs.push(dir);
      return dir.path;
    },
  };
}
