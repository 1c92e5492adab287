import type { FastifyRequest } from 'fastify';

/** The route's config, read once per request by the gate and handed to its steps (fastify rebuilds it on every read). */
export type RouteConfig = FastifyRequest['routeOptions']['config'];
