import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { root } from './paths.js';

/**
 * A webhook receiver on loopback in its own process (`receiver-process.ts`) that notes when each completion
 * arrives (by assessment id) and answers 200 at once. Arrival times come back on its stdout as ms since the
 * epoch and are turned into this process's performance.now(), the clock the callers' acks are taken on.
 */
export async function startReceiver() {
  const arrivals = new Map<string, number>();
  let deliveries = 0;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/receiver-process.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    void exited.then(() => reject(new Error('the webhook receiver exited before it listened')));
    lines.on('line', (line) => {
      const [first, second] = line.split(' ');
      if (first === 'listening') return resolve(Number(second));
      deliveries += 1;
      if (first !== '-' && first !== undefined && !arrivals.has(first)) arrivals.set(first, Number(second) - performance.timeOrigin);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    /** performance.now() (of this process) at the first delivery for each assessment. */
    arrivals,
    /** Every delivery, repeats included. */
    deliveries: () => deliveries,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
