import type { FastifyRequest } from 'fastify';
import type { EventMetadata } from '../ports/event-store.js';

/** What a write's events say of the request that made them: its id, its API key, and its Idempotency-Key's tag. */
export function eventMetadata(request: FastifyRequest): EventMetadata {
  const tag = request.idempotency?.tag;
  return { request_id: request.id, key_id: request.apiKey.id, ...(tag && { idempotency: tag }) };
}
