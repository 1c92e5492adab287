import { createServer, type Server } from 'node:http';

/**
 * A webhook receiver on loopback that only notes when each completion arrives (by assessment id) and
 * answers 200 at once. It verifies nothing: the tests do that; here it must cost as little as it can.
 */
export async function startReceiver() {
  const arrivals = new Map<string, number>();
  let deliveries = 0;
  const server: Server = createServer((request, response) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries += 1;
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { assessment_id?: string } };
        const id = event.data?.assessment_id;
        if (id !== undefined && !arrivals.has(id)) arrivals.set(id, at);
      } finally {
        response.writeHead(200).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    /** performance.now() at the first delivery for each assessment. */
    arrivals,
    /** Every delivery, repeats included. */
    deliveries: () => deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
