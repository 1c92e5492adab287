import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A strong validator: a hash of the bytes, so the same bytes get the same ETag on every replica and after a restart. */
export const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * Sends `body` with its validator and `headers` (Cache-Control among them), or a 304 without the body when
 * If-None-Match names that validator (a weak one compares equal too, RFC 9110 §13.1.2) or is `*`.
 */
export function sendRevalidated(
  request: FastifyRequest,
  reply: FastifyReply,
  { body, type, etag = etagOf(body), headers }: { body: string; type: string; etag?: string; headers: Record<string, string> },
): FastifyReply {
  reply.headers({ ...headers, etag });
  const validators = request.headers['if-none-match']?.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (validators !== undefined && (validators.includes(etag) || validators.includes('*'))) return reply.code(304).send();
  return reply.type(type).send(body);
}
