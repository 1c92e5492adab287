import { Worker } from 'node:worker_threads';
import { type BackgroundWriter, type DocumentWrite, type Fence, FencedOffError } from '../../ports/read-models.js';
import type { Synchronous } from './database.js';

export interface WriterRequest {
  id: number;
  projection: string;
  position: bigint;
  writes: DocumentWrite[];
  fence: Fence | undefined;
}
export type WriterReply = { id: number } & ({ done: true } | { fenced: true } | { error: string });

/** Where the thread's code is: beside this module, compiled; from source (tsx, vitest) it is loaded through tsx as the process is. */
function startWorker(workerData: { path: string; synchronous: Synchronous }): Worker {
  const compiled = import.meta.url.endsWith('.js');
  const entry = new URL(compiled ? './background-writer-thread.js' : './background-writer-thread.ts', import.meta.url);
  if (compiled) return new Worker(entry, { workerData });
  const code = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData });
}

/**
 * Commits to a read-model file from a thread of its own, through a store of its own on the same file: the same
 * statements and transactions as `SqliteReadModelStore.commit`, while the calling thread goes on (a catch-up folds
 * the next events meanwhile). Commits are made in the order they are handed over.
 */
export class SqliteBackgroundWriter implements BackgroundWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void; fence: Fence | undefined }>();
  private nextId = 0;
  private ended: string | undefined;

  constructor(path: string, synchronous: Synchronous) {
    this.worker = startWorker({ path, synchronous });
    this.worker.on('message', (reply: WriterReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (waiting === undefined) return;
      if ('done' in reply) waiting.resolve();
      else if ('fenced' in reply && waiting.fence !== undefined) waiting.reject(new FencedOffError(waiting.fence));
      else waiting.reject(new Error(`read-model commit failed in the writer thread: ${'error' in reply ? reply.error : 'fenced off'}`));
    });
    const end = (reason: string) => {
      this.ended ??= reason;
      for (const { reject } of this.pending.values()) reject(new Error(`the read-model writer thread ended (${reason})`));
      this.pending.clear();
    };
    this.worker.on('error', (error) => end(error.message));
    this.worker.on('exit', (code) => end(`exit code ${code}`));
  }

  commit(projection: string, position: bigint, writes: DocumentWrite[], fence?: Fence): Promise<void> {
    if (this.ended !== undefined) return Promise.reject(new Error(`the read-model writer thread ended (${this.ended})`));
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, fence });
      this.worker.postMessage({ id, projection, position, writes, fence } satisfies WriterRequest);
    });
  }

  /** Ends the thread once the commits handed over are made (or have failed), its file closed. */
  async close(): Promise<void> {
    if (this.ended !== undefined) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage('close' satisfies WriterRequest | 'close');
    await exited;
  }
}
