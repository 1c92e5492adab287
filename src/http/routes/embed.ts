import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { packagePath, sendAsset, staticAsset } from '../static-asset.js';

/** Where callers load the `<nature-assessment>` component from: stable across deploys, revalidated by ETag. */
const EMBED_MODULE_PATH = '/v1/embed/nature-assessment.js';

/**
 * The web component as one ES module, public like the docs. A module script from another origin is fetched
 * in CORS mode, so every origin may read it; it holds no secret (the page supplies the keys).
 */
export function registerEmbedRoutes(app: FastifyInstance): void {
  const module = staticAsset(
    readFileSync(packagePath('packages/embed/dist/nature-assessment.js'), 'utf8'),
    'text/javascript; charset=utf-8',
    {
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
    },
  );
  app.get(EMBED_MODULE_PATH, { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, module));
}
