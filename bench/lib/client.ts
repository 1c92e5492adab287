import { Agent, request } from 'node:http';

export interface Reply {
  status: number;
  body: any;
}

/**
 * A JSON client over keep-alive connections, lighter than fetch: the load generator shares the
 * machine's two cores with the server, so it should take as little of them as it can.
 */
export function jsonClient(baseUrl: string, key: string, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(baseUrl);
  const call = (method: string, path: string, body?: unknown): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          agent,
          hostname,
          port,
          method,
          path,
          headers: {
            authorization: `Bearer ${key}`,
            ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) });
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { call, close: () => agent.destroy() };
}

export type JsonClient = ReturnType<typeof jsonClient>;

/** Fails loudly on an unexpected status: a benchmark of errors measures nothing. */
export async function expectStatus(reply: Promise<Reply>, status: number, what: string): Promise<any> {
  const { status: got, body } = await reply;
  if (got !== status) throw new Error(`${what}: expected ${status}, got ${got}: ${JSON.stringify(body)}`);
  return body;
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}
