import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { ProblemError } from './problem.js';
import type { RouteConfig } from './route-config.js';

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Nature-Client-Secret'].join(', ');
const EXPOSED_HEADERS = ['request-id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'idempotent-replayed', 'Date'].join(', ');
const BROWSER_METHODS: HTTPMethod[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = '600';

/** Sets an answer's CORS headers; true when it answered the request itself (a preflight). `config`: the route's. */
export type Cors = (request: FastifyRequest, reply: FastifyReply, config: RouteConfig) => boolean;

/**
 * CORS on the browser routes only (registered before the routes, so it sees them declared), run by the request
 * gate before authentication: a preflight carries no Authorization, so it is answered there, and an actual
 * request's Access-Control-Allow-Origin is set before anything can fail, so errors carry it too. The preflight
 * allows every origin (no key is known yet); the key's own origins are enforced on the actual request
 * (refuseOtherOrigin). Anything else, including a preflight for a method the route lacks, gets no CORS headers and
 * the usual 404 or 405 (unauthenticated). The headers are those @fastify/cors sent before: Vary: Origin on every
 * answer (a cache must not serve one origin's answer to another), the exposed headers on every browser route's.
 */
export function registerCors(app: FastifyInstance): Cors {
  // The routes a pk key may call (marked publishable or clientSecret where they are declared), for preflights,
  // which reach no route of their own: the router answers which methods a path has.
  const browserRoutes = FindMyWay();
  app.addHook('onRoute', (route) => {
    if (!isBrowserRoute(route.config)) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') browserRoutes.on(method as HTTPMethod, route.url, () => undefined);
  });
  // Every OPTIONS that is no preflight lands here: the same 404, or 405 with Allow, as any other unknown method.
  app.options('*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());

  return (request, reply, config) => {
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (request.method !== 'OPTIONS') {
      if (!isBrowserRoute(config)) return false;
      if (origin) reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      return false;
    }
    // Only a browser's preflight (Origin and Access-Control-Request-Method) is one; any other OPTIONS is 405.
    const asked = origin === undefined ? undefined : request.headers['access-control-request-method']?.toUpperCase();
    const path = request.url.split('?')[0] ?? '';
    if (origin === undefined || asked === undefined || browserRoutes.find(asked as HTTPMethod, path) === null) return false;
    if (origin === '') {
      // As @fastify/cors answered a preflight from an empty Origin.
      reply.code(400).header('access-control-expose-headers', EXPOSED_HEADERS).type('text/plain').send('Invalid Preflight Request');
      return true;
    }
    const methods = BROWSER_METHODS.filter((method) => browserRoutes.find(method, path) !== null);
    reply
      .code(204)
      .headers({
        'access-control-allow-origin': origin,
        'access-control-expose-headers': EXPOSED_HEADERS,
        'access-control-allow-methods': methods.join(', '),
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': PREFLIGHT_MAX_AGE_S,
        'content-length': '0',
      })
      .send();
    return true;
  };
}

function isBrowserRoute(config: { publishable?: boolean; clientSecret?: boolean; resultSecret?: boolean } | undefined): boolean {
  return config?.publishable === true || config?.clientSecret === true || config?.resultSecret === true;
}

/**
 * A pk key minted with origins works from those origins only. CORS alone would not do: the browser hides the
 * answer from another origin, but a PATCH would still have run. So the request is refused (403), and the
 * refusal keeps its Access-Control-Allow-Origin: nothing ran, and the page can read why it was refused
 * instead of seeing a network error it would retry for ever (the allowed origins it names are no secret:
 * anyone holding the pk key can ask with any Origin header). Requests without Origin (not from a browser)
 * are not CORS's concern.
 */
export function refuseOtherOrigin(request: FastifyRequest, key: ApiKeyRecord): void {
  const origin = request.headers.origin;
  if (key.origins.length === 0 || origin === undefined || key.origins.includes(origin)) return;
  throw new ProblemError(
    'insufficient_scope',
    `This publishable key may not be used from ${origin}; its allowed origins are ${key.origins.join(', ')}.`,
  );
}
