import type { FastifyRequest } from 'fastify';

/** If-None-Match names this strong validator (a weak one compares equal too, RFC 9110 §13.1.2), or `*`. */
export function isNotModified(request: FastifyRequest, etag: string): boolean {
  const validators = request.headers['if-none-match']?.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return validators !== undefined && (validators.includes(etag) || validators.includes('*'));
}
