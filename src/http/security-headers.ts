/**
 * The headers every answer carries, as helmet (@fastify/helmet) sent them with this service's options: nosniff,
 * no framing, no referrer; the API answers JSON, so its policy allows nothing to load and nothing to frame it.
 * Written out once rather than rebuilt by helmet on each request (test/unit/security-headers.test.ts holds them
 * to helmet's bytes). An HTML route sets its own policy for what it loads (the docs pages, the API reference at
 * /v1/docs), keeping frame-ancestors 'none'. Cross-Origin-Resource-Policy is left to each route: the
 * embeddable component is read from callers' origins.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/**
 * The one <style> element Swagger UI's bundle renders at run time (swagger-ui-dist as @fastify/swagger-ui 5 ships it),
 * allowed by its hash: without it the browser blocks it and logs a violation on every load of /v1/docs. A newer
 * bundle with other contents shows up in test/e2e/docs-browser.test.ts, which wants no violation.
 */
const SWAGGER_UI_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/** Swagger UI's own policy (its scripts and styles by hash), framed by nobody and loading nothing over https only. */
export function apiReferencePolicy(policy: string): string {
  return policy
    .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
    .replace(/\s*upgrade-insecure-requests;?/, '')
    .replace(/style-src ([^;]*?)\s*;/, (_directive, sources: string) => `style-src ${sources} ${SWAGGER_UI_STYLE};`);
}
