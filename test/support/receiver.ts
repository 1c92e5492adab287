import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the standardwebhooks library made of it: the parsed payload, or the verification error. */
  verified: { ok: true; payload: unknown } | { ok: false; error: string };
}

/** How the receiver answers its n-th request (1-based): a status code, or 'hang' to never answer. */
export type Behaviour = (n: number) => number | 'hang';

/** A real HTTP server on loopback that verifies every request as a Standard Webhooks receiver would. */
export async function startReceiver(behaviour: Behaviour = () => 200) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  let secret: string | undefined;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: Received['verified'];
      try {
        if (secret === undefined) throw new Error('no secret set');
        verified = { ok: true, payload: new Webhook(secret).verify(body, request.headers as Record<string, string>) };
      } catch (error) {
        verified = { ok: false, error: (error as Error).message };
      }
      received.push({ headers: request.headers, body, verified });
      for (const wake of waiters.splice(0)) wake();
      const answer = behaviour(received.length);
      if (answer === 'hang') return;
      response
        .writeHead(answer, answer >= 300 && answer < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {})
        .end(answer === 200 ? 'thanks' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/hooks`,
    received,
    useSecret(value: string) {
      secret = value;
    },
    /** Resolves once `count` requests have arrived (fails after `ms`: generous, so a busy machine is not a failure). */
    async waitFor(count: number, ms = 60_000): Promise<Received[]> {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The receivers a test starts, closed together (in afterEach). */
export function receiverPool() {
  const open: Awaited<ReturnType<typeof startReceiver>>[] = [];
  return {
    async start(behaviour?: Behaviour) {
      const receiver = await startReceiver(behaviour);
      open.push(receiver);
      return receiver;
    },
    async closeAll() {
      for (const receiver of open.splice(0)) await receiver.close();
    },
  };
}
