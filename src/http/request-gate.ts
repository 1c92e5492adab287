import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Admission } from './auth.js';
import type { Cors } from './cors.js';
import { checkHost, checkTransferEncoding } from './framing.js';
import { ProblemError } from './problem.js';
import type { RateLimiter } from './rate-limit.js';
import { logArrival } from './request-log.js';
import type { RouteConfig } from './route-config.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { refuseEmptySegment } from './strict-input.js';

export interface GateSteps {
  limit: RateLimiter;
  cors: Cors;
  authenticate: (request: FastifyRequest, reply: FastifyReply, config: RouteConfig) => Admission;
}

/**
 * The one onRequest hook: everything a request passes before its route, in this order, each step able to refuse
 * it (the answer then keeps the headers set before). Synchronous for a key seen before (the key cache): a
 * callback hook that calls `done` at once, with no promise made per request; a key looked up, or a client secret
 * checked, finishes when its promise does.
 *
 * 1. the security headers (security-headers.ts), first, so that every refusal carries them;
 * 2. exactly one Host, and a body framing Node can end (framing.ts); 3. the request id; 4. refused while the server shuts down;
 * 5. no empty path segment (strict-input.ts); 6. a preflight counted against its client address;
 * 7. CORS, which answers a preflight itself (cors.ts); 8. authentication, scope and the rate limit (auth.ts).
 */
export function registerRequestGate(app: FastifyInstance, { limit, cors, authenticate }: GateSteps): void {
  // While the server drains (SIGTERM), requests still arriving on open connections are turned away cleanly.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  const pass = (request: FastifyRequest, reply: FastifyReply): Admission | 'answered' => {
    reply.headers(SECURITY_HEADERS);
    checkHost(request);
    checkTransferEncoding(request);
    reply.header('request-id', request.id);
    logArrival(request);
    if (closing) {
      throw new ProblemError(
        'service_unavailable',
        'The server is shutting down; retry shortly.',
        {},
        { 'retry-after': '1', connection: 'close' },
      );
    }
    refuseEmptySegment(request);
    // Preflights never reach authentication: they count against their client address here.
    if (request.method === 'OPTIONS') limit.address(reply, request.ip);
    // Read once for both steps: fastify builds routeOptions anew on each read.
    const config = request.routeOptions.config;
    if (cors(request, reply, config)) return 'answered';
    return authenticate(request, reply, config);
  };

  app.addHook('onRequest', (request, reply, done) => {
    let outcome: ReturnType<typeof pass>;
    try {
      outcome = pass(request, reply);
    } catch (error) {
      return done(error as Error);
    }
    if (outcome === undefined) return done();
    if (outcome !== 'answered') outcome.then(() => done(), done);
  });
}
