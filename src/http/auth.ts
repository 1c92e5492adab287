import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiKeyRecord, keyWorksAt, parseRawKey, type Scope } from '../domain/api-keys.js';
import type { KeyStore } from '../ports/key-store.js';
import type { EnvironmentServices, Environments } from '../wiring/environments.js';
import { checkClientSecret, checkResultSecret } from './client-secret.js';
import { refuseOtherOrigin } from './cors.js';
import { KeyCache } from './key-cache.js';
import { KeyUsage } from './key-usage.js';
import { isLinkToken, type LinkGrant, linkGrant, refuseOtherAssessment } from './link-credential.js';
import { ProblemError } from './problem.js';
import type { RateLimiter } from './rate-limit.js';
import type { RouteConfig } from './route-config.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for every authenticated request, before any handler runs. */
    apiKey: ApiKeyRecord;
    /** The environment the key's prefix picks: its stores serve the whole request. */
    env: EnvironmentServices;
  }
  interface FastifyContextConfig {
    /** Publishable (pk) keys may call this route. */
    publishable?: boolean;
    /** Publishable keys need the client secret of the route's assessment (and then need no scope: the secret is the grant). */
    clientSecret?: boolean;
    /** Publishable keys need the client secret of the profile's result-visible assessment (checkResultSecret). */
    resultSecret?: boolean;
    /** Any scope will do: the route checks each operation's own (the MCP endpoint, whose tools follow the key's scopes). */
    anyScope?: boolean;
    /** The scope the route needs, where it is not the method's (nature:read to read, nature:write to write): careers:read. */
    scope?: Scope;
    /** A JSON-RPC endpoint (MCP): a body it cannot read is answered as the protocol's parse error (errors.ts). */
    jsonRpc?: boolean;
  }
}

const PUBLIC_PATHS =
  /^\/(v1\/openapi\.json|v1\/docs(\/.*)?|v1\/embed\/(nature-assessment|assessment-link)\.js|a\/[^/?]+|docs(\/[a-z-]+)?|healthz|readyz)(\?.*)?$/;
/** The dashboard signs its people in with its own sessions (dashboard/sessions.ts): API keys play no part there. */
const DASHBOARD_PATHS = /^\/dashboard(\/|\?|$)/;

/** The scope a route needs, as the specification's scope rules say: its own, else its method's. */
function scopeFor(method: string, config: RouteConfig): Scope {
  return config.scope ?? (method === 'GET' || method === 'HEAD' ? 'nature:read' : 'nature:write');
}

/** What a request passes to reach its route: nothing to wait for (a known key), or a promise (a lookup, a secret). */
export type Admission = Promise<void> | undefined;

/**
 * Authenticates every request to a route that needs a key, picks its environment, then checks the route's
 * scope; run by the request gate, last. Each request counts against its key's rate limit; requests without a
 * valid key (public routes, unknown routes, bad keys) count against their client address, so a flood of bad
 * keys is limited too. A key seen before is admitted synchronously from the key cache (key-cache.ts, which
 * says how stale a revoked key can be); any other is looked up in the store.
 */
export function registerAuth(
  app: FastifyInstance,
  keys: KeyStore,
  envs: Environments,
  limit: RateLimiter,
  clock: () => Date,
): (request: FastifyRequest, reply: FastifyReply, config: RouteConfig) => Admission {
  // Declared without a value: the gate sets both before any handler that reads them runs.
  app.decorateRequest('apiKey');
  app.decorateRequest('env');
  app.decorateRequest('closedSecretRefusal', null);
  app.decorateRequest('resultOf', null);
  const cache = new KeyCache(keys);
  const usage = new KeyUsage(keys, app.log);
  app.addHook('onClose', () => usage.flush());

  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    config: RouteConfig,
    key: ApiKeyRecord | undefined,
    link?: LinkGrant,
  ): Admission => {
    const now = clock();
    if (key === undefined || !keyWorksAt(key, now)) {
      limit.address(reply, request.ip);
      throw key === undefined
        ? new ProblemError('unauthenticated', 'No such API key.')
        : new ProblemError('unauthenticated', `This API key was ${key.revoked_reason} and no longer works.`);
    }
    // A link's token is no key of the store: it has no last use to record.
    if (link === undefined) usage.seen(key, now);
    else refuseOtherAssessment(request, link);
    // Set before the rate limit may refuse it: the request log names the key of a 429 too.
    request.apiKey = key;
    request.env = envs[key.environment];
    limit.key(reply, key.id);
    return grantOf(request, config, key, now);
  };

  const admitLink = async (request: FastifyRequest, reply: FastifyReply, config: RouteConfig, raw: string): Promise<void> => {
    const grant = await linkGrant(raw, envs);
    if (grant === undefined) {
      limit.address(reply, request.ip);
      throw new ProblemError('unauthenticated', 'This assessment link is not opened, or no longer works (revoked, or its subject erased).');
    }
    await admit(request, reply, config, grant.key, grant);
  };

  return (request, reply, config) => {
    // A preflight the CORS step did not answer (not a browser route) gets its 404 or 405 without a key; it was counted.
    if (request.method === 'OPTIONS') return undefined;
    // An unknown route answers 404 (or 405) with or without a key.
    if (request.is404 || PUBLIC_PATHS.test(request.url) || DASHBOARD_PATHS.test(request.url)) {
      limit.address(reply, request.ip);
      return undefined;
    }
    const header = request.headers.authorization;
    // The scheme is case-insensitive (RFC 9110, section 11.1), one or more spaces before the key (RFC 9110's 1*SP).
    const raw = header === undefined ? undefined : /^bearer +([^\s]+)$/i.exec(header)?.[1];
    // A key in the cache was found in the store, so it has a key's shape: only others are checked for it.
    const cached = raw === undefined ? undefined : cache.cached(raw);
    if (cached !== undefined) return admit(request, reply, config, cached);
    if (raw === undefined || parseRawKey(raw) === undefined) {
      // Not a key's shape: a hosted link's token (checked only here, so keys pay nothing for it), or refused.
      if (raw !== undefined && isLinkToken(raw)) return admitLink(request, reply, config, raw);
      limit.address(reply, request.ip);
      throw header === undefined
        ? new ProblemError('unauthenticated', 'Send your API key as Authorization: Bearer <API key>.')
        : new ProblemError(
            'unauthenticated',
            'The Authorization header must be "Bearer " and a key starting test_pk_, test_sk_, live_pk_ or live_sk_.',
          );
    }
    return cache.find(raw).then((key) => admit(request, reply, config, key));
  };
}

/** What an authenticated key may reach on the route: a pk key only the browser's routes, any key only its scopes. */
function grantOf(request: FastifyRequest, config: RouteConfig, key: ApiKeyRecord, now: Date): Admission {
  if (key.type === 'pk') {
    refuseOtherOrigin(request, key);
    if (config.clientSecret === true) return checkClientSecret(request, now);
    if (config.resultSecret === true) return checkResultSecret(request, now);
    if (config.publishable !== true) {
      throw new ProblemError(
        'insufficient_scope',
        'Publishable (pk) keys may only read the item bank, and one assessment with its client secret; use a secret (sk) key from your server.',
      );
    }
  }
  if (config.anyScope === true) return undefined;
  const needed = scopeFor(request.method, config);
  if (!key.scopes.includes(needed)) {
    throw new ProblemError(
      'insufficient_scope',
      `This operation needs the ${needed} scope; the key has ${key.scopes.join(', ') || 'none'}.`,
      {
        required_scope: needed,
      },
    );
  }
  return undefined;
}
