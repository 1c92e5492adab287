import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ApiKeyRecord, hashKey, parseRawKey, type Scope } from '../domain/api-keys.js';
import type { EnvironmentServices, Environments } from '../environments.js';
import type { KeyStore } from '../ports/key-store.js';
import { checkClientSecret, checkResultSecret } from './client-secret.js';
import { refuseOtherOrigin } from './cors.js';
import { ProblemError } from './problem.js';
import type { RateLimiter } from './rate-limit.js';

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
    /** A JSON-RPC endpoint (MCP): a body it cannot read is answered as the protocol's parse error (errors.ts). */
    jsonRpc?: boolean;
  }
}

const PUBLIC_PATHS = /^\/(v1\/openapi\.json|v1\/docs(\/.*)?|v1\/embed\/nature-assessment\.js|docs(\/[a-z-]+)?|healthz|readyz)(\?.*)?$/;
/** The dashboard signs its people in with its own sessions (dashboard/sessions.ts): API keys play no part there. */
const DASHBOARD_PATHS = /^\/dashboard(\/|\?|$)/;

/** The scope a method needs, as the specification's scope rules say. */
function scopeFor(method: string): Scope {
  return method === 'GET' || method === 'HEAD' ? 'nature:read' : 'nature:write';
}

/**
 * Authenticates every request to a route that needs a key, picks its environment, then checks the route's
 * scope. Each request counts against its key's rate limit; requests without a valid key (public routes,
 * unknown routes, bad keys) count against their client address, so a flood of bad keys is limited too.
 */
export function registerAuth(app: FastifyInstance, keys: KeyStore, envs: Environments, limit: RateLimiter, clock: () => Date): void {
  // Declared without a value: the hook below sets both before any handler that reads them runs.
  app.decorateRequest('apiKey');
  app.decorateRequest('env');
  app.decorateRequest('closedSecretRefusal', null);
  app.decorateRequest('resultOf', null);
  app.addHook('onRequest', async (request, reply) => {
    const address = `address:${request.ip}`;
    // An unknown route answers 404 (or 405) with or without a key.
    // A preflight the CORS hook did not answer (not a browser route) gets its 404 or 405 without a key; cors.ts counted it.
    if (request.method === 'OPTIONS') return;
    if (PUBLIC_PATHS.test(request.url) || DASHBOARD_PATHS.test(request.url) || request.is404) return limit(request, reply, address);
    const key = await authenticate(request, keys).catch(async (error: unknown) => {
      await limit(request, reply, address);
      throw error;
    });
    await limit(request, reply, `key:${key.id}`);
    request.apiKey = key;
    request.env = envs[key.environment];
    if (key.type === 'pk') refuseOtherOrigin(request, key);
    if (key.type === 'pk' && request.routeOptions.config.clientSecret === true) return checkClientSecret(request, clock());
    if (key.type === 'pk' && request.routeOptions.config.resultSecret === true) return checkResultSecret(request, clock());
    if (key.type === 'pk' && request.routeOptions.config.publishable !== true) {
      throw new ProblemError(
        'insufficient_scope',
        'Publishable (pk) keys may only read the item bank, and one assessment with its client secret; use a secret (sk) key from your server.',
      );
    }
    if (request.routeOptions.config.anyScope === true) return;
    const needed = scopeFor(request.method);
    if (!key.scopes.includes(needed)) {
      throw new ProblemError(
        'insufficient_scope',
        `This operation needs the ${needed} scope; the key has ${key.scopes.join(', ') || 'none'}.`,
        {
          required_scope: needed,
        },
      );
    }
  });
}

async function authenticate(request: FastifyRequest, keys: KeyStore): Promise<ApiKeyRecord> {
  const header = request.headers.authorization;
  if (header === undefined) throw new ProblemError('unauthenticated', 'Send your API key as Authorization: Bearer <API key>.');
  // The scheme is case-insensitive (RFC 9110, section 11.1), one or more spaces before the key (RFC 9110's 1*SP).
  const raw = /^bearer +([^\s]+)$/i.exec(header)?.[1];
  if (raw === undefined || parseRawKey(raw) === undefined) {
    throw new ProblemError(
      'unauthenticated',
      'The Authorization header must be "Bearer " and a key starting test_pk_, test_sk_, live_pk_ or live_sk_.',
    );
  }
  const key = await keys.findByHash(hashKey(raw));
  if (key === undefined) throw new ProblemError('unauthenticated', 'No such API key.');
  if (key.revoked_at !== null) throw new ProblemError('unauthenticated', `This API key was ${key.revoked_reason} and no longer works.`);
  return key;
}
