import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Helmet's headers on every answer: nosniff, no framing, no referrer. The API answers JSON, so its policy
 * allows nothing to load and nothing to frame it; an HTML route sets its own policy for what it loads (the
 * docs pages, the API reference at /v1/docs), keeping frame-ancestors 'none'. Cross-Origin-Resource-Policy is
 * left to each route: the embeddable component is read from callers' origins.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"] },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: false,
  });
}

/** Swagger UI's own policy (its scripts and styles by hash), framed by nobody and loading nothing over https only. */
export function apiReferencePolicy(policy: string): string {
  return policy.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/\s*upgrade-insecure-requests;?/, '');
}
