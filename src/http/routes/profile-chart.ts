import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { renderProfileChart } from '../../charts/profile-chart.js';
import { sendRevalidated } from '../conditional-get.js';
import type { RouteReply, RouteRequest } from '../route-handler.js';
import { getProfileChartSchema } from './profile-chart-schemas.js';
import { profileById } from './profiles.js';

/**
 * Private: a chart is a person's result, for the caller's reader alone, never a shared cache. Five minutes: an
 * erasure or a new rendering reaches a reader soon, and a revalidation after that costs a 304.
 */
const CHART_CACHE_CONTROL = 'private, max-age=300';

export function registerProfileChartRoute(app: FastifyInstance): void {
  // A page whose assessment was started with result_visible_to_subject draws the person's result with a pk key.
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/v1/nature/profiles/:id/chart.svg', { schema: getProfileChartSchema, config: { resultSecret: true } }, getProfileChart);
}

async function getProfileChart(request: RouteRequest<typeof getProfileChartSchema>, reply: RouteReply<typeof getProfileChartSchema>) {
  const profile = await profileById(request.env, request.params.id);
  return sendRevalidated(request, reply, {
    body: renderProfileChart(profile, request.query),
    type: 'image/svg+xml; charset=utf-8',
    headers: { 'cache-control': CHART_CACHE_CONTROL },
  });
}
