import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type ApiKeyRecord, type Environment, keyHint, parseRawKey } from '../domain/api-keys.js';
import { requestLineWriter } from '../support/logger.js';
import type { Environments } from '../wiring/environments.js';
import { RequestRecorder } from './request-recorder.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The problem an answer of 400 or more sent (errors.ts's problemSender), for the request log. */
    problemSent: object | null;
  }
}

/** A request's arrival, logged at debug level only (the request gate calls it). */
export function logArrival(request: FastifyRequest): void {
  request.log.debug({ req: request }, 'incoming request');
}

/** The API's requests the request log keeps: under /v1, less the docs, the OpenAPI document and the embed module. */
const API_REQUEST = /^\/v1\/(?!docs(?:[/?]|$)|openapi\.json|embed\/)/;
const IDEMPOTENCY_KEY_MAX = 255;

/**
 * One info line per answered request (method, path, status, time), fastify's default of two info lines per request
 * being a measurable share of a request's CPU. Built from fields known to be safe (the id this server made, the
 * method the router matched, the path as the request serializer redacts it, numbers), so it is written without the
 * walk every other line gets for credentials (logger.ts's requestLineWriter).
 *
 * And the request log (request-recorder.ts): each API request with an environment (its key's, or the one a refused
 * key's prefix names) is noted for the environment's developers. A request with no key, or none of a key's shape,
 * belongs to no environment and is kept in neither.
 */
export function registerRequestLog(app: FastifyInstance, logger: Logger, envs: Environments, clock: () => Date): void {
  const line = requestLineWriter(logger);
  const routeWords = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/')) return;
    for (const word of route.url.split('/')) if (word !== '' && !word.startsWith(':')) routeWords.add(word);
  });
  const recorder = new RequestRecorder((environment) => envs[environment].requests, routeWords, logger);
  app.addHook('onClose', () => recorder.flush());
  app.decorateRequest('problemSent', null);
  app.addHook('onResponse', (request, reply, done) => {
    line({ reqId: request.id, method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime });
    if (API_REQUEST.test(request.url)) note(recorder, request, reply, clock);
    done();
  });
}

/** Notes the request for the log when it has an environment: a few fields read, nothing copied or redacted here. */
function note(recorder: RequestRecorder, request: FastifyRequest, reply: FastifyReply, clock: () => Date): void {
  // Declared on every request, set only once a key authenticated it.
  const key = request.apiKey as ApiKeyRecord | undefined;
  let environment: Environment;
  let hint: string;
  if (key !== undefined) {
    environment = key.environment;
    hint = keyHint(key, key.last4);
  } else {
    // A refused key of a key's shape names its environment; any other token belongs to none.
    const raw = /^bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const named = raw === undefined ? undefined : parseRawKey(raw);
    if (named === undefined) return;
    environment = named.environment;
    hint = keyHint(named, raw!.slice(-4));
  }
  const idempotencyKey = request.headers['idempotency-key'];
  const duration = reply.elapsedTime;
  recorder.note(environment, {
    id: request.id,
    at: clock().getTime() - Math.round(duration),
    method: request.method,
    route: request.routeOptions.url ?? null,
    url: request.url,
    status: reply.statusCode,
    duration_ms: Math.round(duration * 100) / 100,
    key_id: key?.id ?? null,
    key_hint: hint,
    idempotency_key: typeof idempotencyKey === 'string' ? idempotencyKey.slice(0, IDEMPOTENCY_KEY_MAX) : null,
    body: request.body ?? undefined,
    // Only refused requests have one: the text is made here, for them alone.
    problem: request.problemSent === null ? null : JSON.stringify(request.problemSent),
  });
}
