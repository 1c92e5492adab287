/**
 * The lifecycle benchmark's webhook receiver, run as its own process so that the callers' work in the
 * benchmark's process never delays it: it answers 200 at once and prints one line per delivery,
 * `<assessment id> <arrival, ms since the epoch>`, which `receiver.ts` reads. It verifies nothing.
 */
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  const at = performance.timeOrigin + performance.now();
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let id = '-';
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { assessment_id?: string } }).data?.assessment_id ?? '-';
    } finally {
      response.writeHead(200).end();
      process.stdout.write(`${id} ${at}\n`);
    }
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
