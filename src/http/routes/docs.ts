import type { FastifyInstance } from 'fastify';
import { type DocsSettings, loadDocsPages } from '../docs/pages.js';
import { sendAsset } from '../static-asset.js';

/** The guides under /docs: public, offline (nothing loaded from elsewhere), rendered once at start-up. */
export function registerDocsRoutes(app: FastifyInstance, settings: DocsSettings): void {
  for (const [slug, page] of loadDocsPages(settings)) {
    app.get(slug === 'index' ? '/docs' : `/docs/${slug}`, { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, page));
  }
}
