import { Worker } from 'node:worker_threads';
import type { Sent, SignedDelivery } from './sender.js';

/**
 * A delivery to send once its lane (its endpoint) has fewer than `atOnce` under way, unless that takes longer than
 * `waitAtMostMs`; or one to withdraw if it has not started.
 */
export type ThreadRequest =
  | { id: number; delivery: SignedDelivery; lane: string; atOnce: number; waitAtMostMs: number }
  | { withdraw: number };
export type ThreadReply = { id: number } & ({ sent: Sent } | { withdrawn: true } | { error: string });

/**
 * Where a delivery queues in the thread: `atOnce` of its lane's go out at a time; one that waited `waitAtMostMs`
 * (by default, as long as it takes) or whose `signal` aborted before it started is withdrawn.
 */
export interface Lane {
  name: string;
  atOnce: number;
  waitAtMostMs?: number;
  signal?: AbortSignal;
}

/**
 * The worker holds a few POSTs' bodies and answers at a time: a small young generation keeps its memory small
 * (the defaults size it for a whole server); one that runs out of heap dies and is replaced.
 */
const HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 };

/** Where the thread's code is: beside this module, compiled; from source (tsx, vitest) it is loaded through tsx as the process is. */
function startWorker(): Worker {
  const compiled = import.meta.url.endsWith('.js');
  const entry = new URL(compiled ? './sender-thread.js' : './sender-thread.ts', import.meta.url);
  if (compiled) return new Worker(entry, { resourceLimits: HEAP });
  const code = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { resourceLimits: HEAP });
}

/**
 * The main thread's side of the delivery thread: one worker for the process, started by the first POST of
 * the first dispatcher that uses it and ended when the last one stops. A worker that dies fails the POSTs it
 * had (their handlers throw, so the bus offers their messages again) and the next POST starts another.
 */
export class DeliveryThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (sent: Sent | undefined) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private users = 0;

  /** One more user (a running dispatcher); the returned function ends its use, and the worker with the last one. */
  use(): () => Promise<void> {
    this.users += 1;
    let ended = false;
    return async () => {
      if (ended) return;
      ended = true;
      this.users -= 1;
      if (this.users === 0) await this.stop();
    };
  }

  /** The POST's result, once its lane had room and it was sent; undefined when it was withdrawn (or waited too long) before it started. */
  send(delivery: SignedDelivery, lane: Lane = { name: delivery.url, atOnce: Number.POSITIVE_INFINITY }): Promise<Sent | undefined> {
    const worker = this.running();
    const id = this.nextId++;
    const withdraw = () => worker.postMessage({ withdraw: id } satisfies ThreadRequest);
    lane.signal?.addEventListener('abort', withdraw, { once: true });
    return new Promise<Sent | undefined>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const { name, atOnce, waitAtMostMs = Number.POSITIVE_INFINITY } = lane;
      worker.postMessage({ id, delivery, lane: name, atOnce, waitAtMostMs } satisfies ThreadRequest);
      if (lane.signal?.aborted === true) withdraw();
    }).finally(() => lane.signal?.removeEventListener('abort', withdraw));
  }

  private running(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startWorker();
    // It never keeps the process alive: a dispatcher that is never stopped does not hold up an exit.
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('sent' in reply) waiting?.resolve(reply.sent);
      else if ('withdrawn' in reply) waiting?.resolve(undefined);
      else waiting?.reject(new Error(`webhook not sent: ${reply.error}`));
    });
    const ended = (reason: string) => {
      if (this.worker === worker) this.abandon(`the webhook delivery thread ended (${reason})`);
    };
    worker.on('error', (error) => ended(error.message));
    worker.on('exit', (code) => ended(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  /** Forgets the worker, failing the POSTs it had: the next POST starts another. */
  private abandon(reason: string): void {
    this.worker = undefined;
    for (const { reject } of this.pending.values()) reject(new Error(reason));
    this.pending.clear();
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.abandon('the webhook delivery thread was stopped');
    await worker.terminate();
  }
}

/** The process's delivery thread, shared by every environment's dispatcher. */
export const deliveryThread = new DeliveryThread();
