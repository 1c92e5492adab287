import type { FastifyInstance } from 'fastify';
import { type DocsSettings, loadDocsPages } from '../docs/pages.js';
import { originOf } from '../origin.js';
import { sendAsset } from '../static-asset.js';

/**
 * The guides under /docs: public, offline (nothing loaded from elsewhere), rendered once at start-up; their
 * examples name the origin the request came to, or `publicUrl`.
 */
export function registerDocsRoutes(app: FastifyInstance, settings: DocsSettings, publicUrl: string | undefined): void {
  for (const [slug, page] of loadDocsPages(settings)) {
    app.get(slug === 'index' ? '/docs' : `/docs/${slug}`, { schema: { hide: true } }, (request, reply) =>
      sendAsset(request, reply, page(originOf(request, publicUrl))),
    );
  }
}
