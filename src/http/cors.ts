import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { ProblemError } from './problem.js';
import type { RateLimiter } from './rate-limit.js';

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Nature-Client-Secret'];
const EXPOSED_HEADERS = ['request-id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'idempotent-replayed', 'Date'];
const BROWSER_METHODS: HTTPMethod[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * CORS on the browser routes only (registered before the routes, so it sees them declared), in the first onRequest hook: a preflight carries no Authorization, so
 * it is answered before authentication, and an actual request's Access-Control-Allow-Origin is set before
 * anything can fail, so errors carry it too. The preflight allows every origin (no key is known yet); the
 * key's own origins are enforced on the actual request (refuseOtherOrigin). Anything else, including a
 * preflight for a method the route lacks, gets no CORS headers and the usual 404 or 405 (unauthenticated).
 */
export async function registerCors(app: FastifyInstance, limit: RateLimiter): Promise<void> {
  // The routes a pk key may call (marked publishable or clientSecret where they are declared), for preflights,
  // which reach no route of their own: the router answers which methods a path has.
  const browserRoutes = FindMyWay();
  app.addHook('onRoute', (route) => {
    if (route.config?.publishable !== true && route.config?.clientSecret !== true && route.config?.resultSecret !== true) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') browserRoutes.on(method as HTTPMethod, route.url, () => undefined);
  });
  const isBrowserRoute = (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    return config.publishable === true || config.clientSecret === true || config.resultSecret === true;
  };
  // Preflights never reach authentication: they count against their client address here.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') await limit(request, reply, `address:${request.ip}`);
  });
  await app.register(cors, {
    hook: 'onRequest',
    delegator: async (request: FastifyRequest) => {
      const path = request.url.split('?')[0] ?? '';
      // Only a browser's preflight (Origin and Access-Control-Request-Method) is one; any other OPTIONS is 405.
      const asked = request.headers.origin === undefined ? undefined : request.headers['access-control-request-method']?.toUpperCase();
      const allowed =
        request.method === 'OPTIONS'
          ? asked !== undefined && browserRoutes.find(asked as HTTPMethod, path) !== null
          : isBrowserRoute(request);
      if (!allowed) return { origin: false };
      if (request.method !== 'OPTIONS') return { origin: true, exposedHeaders: EXPOSED_HEADERS };
      const methods = BROWSER_METHODS.filter((method) => browserRoutes.find(method, path) !== null);
      return { origin: true, methods, allowedHeaders: ALLOWED_HEADERS, exposedHeaders: EXPOSED_HEADERS, maxAge: PREFLIGHT_MAX_AGE_S };
    },
  });
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
