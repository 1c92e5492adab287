import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { requestLineWriter } from '../support/logger.js';

/** A request's arrival, logged at debug level only (the request gate calls it). */
export function logArrival(request: FastifyRequest): void {
  request.log.debug({ req: request }, 'incoming request');
}

/**
 * One info line per answered request (method, path, status, time), fastify's default of two info lines per request
 * being a measurable share of a request's CPU. Built from fields known to be safe (the id this server made, the
 * method the router matched, the path as the request serializer redacts it, numbers), so it is written without the
 * walk every other line gets for credentials (logger.ts's requestLineWriter).
 */
export function registerRequestLog(app: FastifyInstance, logger: Logger): void {
  const line = requestLineWriter(logger);
  app.addHook('onResponse', (request, reply, done) => {
    line({ reqId: request.id, method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime });
    done();
  });
}
