import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { parseUsageRange } from '../../domain/usage.js';
import { readUsage } from '../../projections/usage.js';
import { ProblemError } from '../problem.js';
import type { Clock, RouteRequest } from '../route-handler.js';
import { getUsageSchema } from './usage-schemas.js';

export function registerUsageRoutes(app: FastifyInstance, clock: Clock): void {
  app.withTypeProvider<ZodTypeProvider>().get('/v1/nature/usage', { schema: getUsageSchema }, (request) => getUsage(request, clock));
}

/** The range is checked here, as the operator command checks it (parseUsageRange), not by the schema. */
async function getUsage(request: RouteRequest<typeof getUsageSchema>, clock: Clock) {
  const parsed = parseUsageRange(request.query, clock());
  if ('errors' in parsed) {
    throw new ProblemError('validation_failed', `The request query has ${parsed.errors.length} invalid field(s).`, {
      errors: parsed.errors.map(({ field, message }) => ({ path: `/${field}`, in: 'query' as const, message })),
    });
  }
  return readUsage(request.env.readModels, parsed.range, request.env.livemode);
}
