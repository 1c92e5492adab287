/**
 * The delivery thread (node:worker_threads): signs and POSTs what the dispatcher hands it, away from the
 * request work on the main thread, so a POST goes out and its answer is read as soon as they can. It keeps
 * each endpoint to its POSTs at once (PostLanes): the next one waiting goes out as one ends, here.
 */
import { parentPort } from 'node:worker_threads';
import type { ThreadReply, ThreadRequest } from './delivery-thread.js';
import { PostLanes } from './post-lanes.js';
import { sendSigned } from './sender.js';

const port = parentPort;
if (port === null) throw new Error('sender-thread runs as a worker thread only');
const lanes = new PostLanes();

port.on('message', (request: ThreadRequest) => {
  if ('withdraw' in request) return lanes.withdraw(request.withdraw);
  const { id, delivery, lane, atOnce, waitAtMostMs } = request;
  // send() reports every network failure in its result; what throws (an unparseable URL, say) is answered as an error.
  const reply = (answer: ThreadReply) => port.postMessage(answer);
  lanes
    .run(lane, atOnce, id, () => sendSigned(delivery), waitAtMostMs)
    .then(
      (sent) => reply(sent === undefined ? { id, withdrawn: true } : { id, sent }),
      (error: unknown) => reply({ id, error: error instanceof Error ? error.message : String(error) }),
    );
});
