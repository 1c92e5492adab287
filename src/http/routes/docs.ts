import type { FastifyInstance } from 'fastify';
import { isNotModified } from '../conditional.js';
import { type DocsSettings, loadDocsPages } from '../docs/pages.js';
import { CONTENT_SECURITY_POLICY } from '../docs/render.js';

/** Five minutes: a deploy shows new docs soon, and a revalidation after that costs a 304. */
const CACHE_CONTROL = 'public, max-age=300';

/** The guides under /docs: public, offline (nothing loaded from elsewhere), rendered once at start-up. */
export function registerDocsRoutes(app: FastifyInstance, settings: DocsSettings): void {
  for (const [slug, page] of loadDocsPages(settings)) {
    app.get(slug === 'index' ? '/docs' : `/docs/${slug}`, { schema: { hide: true } }, (request, reply) => {
      reply.headers({
        'cache-control': CACHE_CONTROL,
        etag: page.etag,
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
      if (isNotModified(request, page.etag)) return reply.code(304).send();
      return reply.type('text/html; charset=utf-8').send(page.html);
    });
  }
}
