import type { FastifyInstance } from 'fastify';

/**
 * One info line per answered request (method, path, status, time), and its arrival only at debug level:
 * fastify's default of two info lines per request was a measurable share of a request's CPU.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    request.log.debug({ req: request }, 'incoming request');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  });
}
