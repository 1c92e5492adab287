/**
 * The read-model writer thread (node:worker_threads): makes the commits a catch-up hands it, in order, through a
 * store of its own on the same file, and answers each once made.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FencedOffError } from '../../ports/read-models.js';
import type { WriterReply, WriterRequest } from './background-writer.js';
import type { Synchronous } from './database.js';
import { SqliteReadModelStore } from './read-model-store.js';

const port = parentPort;
if (port === null) throw new Error('background-writer-thread runs as a worker thread only');
const { path, synchronous } = workerData as { path: string; synchronous: Synchronous };
// The list indexes are the opening store's to create or drop: this one only writes (an empty list changes none).
const store = new SqliteReadModelStore(path, synchronous);

port.on('message', (request: WriterRequest | 'close') => {
  if (request === 'close') {
    void store.close().then(() => port.close());
    return;
  }
  const { id, projection, position, writes, fence } = request;
  const reply = (answer: WriterReply) => port.postMessage(answer);
  // commit() runs synchronously: requests are made one after another, in the order they came.
  store.commit(projection, position, writes, fence).then(
    () => reply({ id, done: true }),
    (error: unknown) =>
      reply(error instanceof FencedOffError ? { id, fenced: true } : { id, error: error instanceof Error ? error.message : String(error) }),
  );
});
