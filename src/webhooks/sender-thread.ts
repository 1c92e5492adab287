/**
 * The delivery thread (node:worker_threads): signs and POSTs what the dispatcher hands it, away from the
 * request work on the main thread, so a POST goes out and its answer is read as soon as they can.
 */
import { parentPort } from 'node:worker_threads';
import type { ThreadReply, ThreadRequest } from './delivery-thread.js';
import { sendSigned } from './sender.js';

const port = parentPort;
if (port === null) throw new Error('sender-thread runs as a worker thread only');

port.on('message', ({ id, delivery }: ThreadRequest) => {
  // send() reports every network failure in its result; what throws (an unparseable URL, say) is answered as an error.
  const reply = (answer: ThreadReply) => port.postMessage(answer);
  Promise.resolve()
    .then(() => sendSigned(delivery))
    .then(
      (sent) => reply({ id, sent }),
      (error: unknown) => reply({ id, error: error instanceof Error ? error.message : String(error) }),
    );
});
