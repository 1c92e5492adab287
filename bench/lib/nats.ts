import { type ChildProcess, spawn } from 'node:child_process';
import { scratchDir } from './paths.js';
import { freePort, which } from './processes.js';

/** The nats-server binary, or undefined when the machine lacks it. */
export const natsServerPath = which('nats-server');

/** A real nats-server with JetStream on a free loopback port and a fresh store directory. */
export async function startNatsServer(): Promise<{ url: string; stop(): Promise<void> }> {
  if (natsServerPath === undefined) throw new Error('nats-server is not installed');
  const port = await freePort();
  const dir = scratchDir('nature-bench-nats-');
  const child: ChildProcess = spawn(natsServerPath, ['-js', '-sd', dir.path, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${output}`)), 10_000);
    // Stays attached after start-up: it keeps draining the output, so the server never blocks on a full pipe.
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Server is ready')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => reject(new Error(`nats-server exited:\n${output}`)));
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      dir.cleanup();
    },
  };
}
