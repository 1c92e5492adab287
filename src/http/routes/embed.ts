import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { isNotModified } from '../conditional.js';

/** Where callers load the `<nature-assessment>` component from: stable across deploys, revalidated by ETag. */
export const EMBED_MODULE_PATH = '/v1/embed/nature-assessment.js';
const BUILT_MODULE = join('packages', 'embed', 'dist', 'nature-assessment.js');
/** Five minutes: a deploy reaches pages soon, and a revalidation after that costs a 304. */
const CACHE_CONTROL = 'public, max-age=300';

/** The package root holds packages/embed/dist, whether this runs from src/ (tsx), dist/src/ or the image's /app. */
function builtModule(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, BUILT_MODULE))) return readFileSync(join(dir, BUILT_MODULE), 'utf8');
  }
  throw new Error(`${BUILT_MODULE} is missing: build it with npm run build`);
}

/**
 * The web component as one ES module, public like the docs. A module script from another origin is fetched
 * in CORS mode, so every origin may read it; it holds no secret (the page supplies the keys).
 */
export function registerEmbedRoutes(app: FastifyInstance): void {
  const source = builtModule();
  const etag = `"${createHash('sha256').update(source).digest('base64url').slice(0, 27)}"`;
  app.get(EMBED_MODULE_PATH, { schema: { hide: true } }, (request, reply) => {
    reply.headers({
      'cache-control': CACHE_CONTROL,
      etag,
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
    });
    if (isNotModified(request, etag)) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(source);
  });
}
