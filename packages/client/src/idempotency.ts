import type { Middleware } from 'openapi-fetch';

/**
 * Gives every POST and PATCH an Idempotency-Key unless the caller chose one. It is set once per call,
 * before the retrying fetch, so every retry of the call carries the same key and the server runs it once.
 */
export const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if ((request.method === 'POST' || request.method === 'PATCH') && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
  },
};
