import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { ProblemError } from './problem.js';

/** Methods that write: what admission control counts and may refuse. */
const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * Admission control: at most `maxWritesInFlight` writes to the API (`POST`, `PATCH`, `PUT`, `DELETE` under `/v1/`)
 * are under way at once in this process, each counted from the moment it is admitted (after authentication and
 * the rate limit) until its answer is sent or its connection closes. One more is answered 503
 * `service_unavailable` with `Retry-After` before its body is read, so it changes nothing: a write is refused
 * whole or run whole. Past the bound the server takes work faster than its log can commit it, and every
 * answer, reads included, would only wait longer. Reads are never counted and cost nothing here: the hook is
 * added to the write routes only.
 */
export function registerAdmission(app: FastifyInstance, maxWritesInFlight: number): void {
  let inFlight = 0;
  const admit: onRequestHookHandler = (request, reply, done) => {
    // A route may take a read method too (GET and POST on one path): only its writes count.
    if (!WRITES.has(request.method)) return done();
    if (inFlight >= maxWritesInFlight) {
      return done(
        new ProblemError(
          'service_unavailable',
          'The server has more writes under way than it takes at once; retry after Retry-After, with the same Idempotency-Key.',
          {},
          { 'retry-after': '1' },
        ),
      );
    }
    inFlight += 1;
    // Emitted once whether the answer was sent whole or the connection broke off first.
    reply.raw.once('close', () => {
      inFlight -= 1;
    });
    done();
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.url.startsWith('/v1/') || !methods.some((method) => WRITES.has(method))) return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, admit];
  });
}
