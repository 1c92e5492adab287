import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { intelligences, natures } from '../../scoring/constructs.js';
import type { Document } from '../../ports/read-models.js';
import { ProblemError } from '../problem.js';
import { problems, timestamp } from '../schemas.js';
import { findSubject } from './subjects.js';

const scoresOf = (names: readonly string[]) => z.strictObject(Object.fromEntries(names.map((name) => [name, z.number().min(0).max(1)])));

const description = z.object({
  construct: z.string(),
  band: z.enum(['medium_high', 'high', 'very_high']).describe('Only raw scores of 7 or more are described.'),
  text: z.string(),
});

const profileResource = z
  .object({
    id: z.string().describe('prf_…'),
    object: z.literal('profile'),
    subject_id: z.string(),
    assessment_id: z.string(),
    scoring_version: z.string(),
    language: z.literal('en'),
    natures: scoresOf(natures).describe('9 scores, 0.0..1.0, alphabetical'),
    intelligences: scoresOf(intelligences).describe('10 scores, 0.0..1.0, alphabetical'),
    descriptions: z.object({
      version: z.string(),
      natures: z.array(description).max(3),
      intelligences: z.array(description).max(3),
    }),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Profile' });

type ProfileResource = z.infer<typeof profileResource>;

function toProfileResource(doc: Document, livemode: boolean): ProfileResource {
  return { ...(doc as unknown as Omit<ProfileResource, 'object' | 'livemode'>), object: 'profile', livemode };
}

export function registerProfileRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/nature/subjects/:id/profile',
    {
      schema: {
        tags: ['profiles'],
        summary: "The subject's latest profile",
        description: 'The profile of the most recently completed assessment; 404 profile_not_found until one completes.',
        params: z.strictObject({ id: z.string() }),
        response: { 200: profileResource, ...problems(404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await findSubject(request.env.readModels, id))) throw new ProblemError('not_found', `No subject ${id}.`);
      const latest = await request.env.readModels.list('profiles', { where: { subject_id: id }, limit: 1 });
      const doc = latest.data[0];
      if (!doc) throw new ProblemError('profile_not_found', 'The subject has no completed assessment yet.');
      return toProfileResource(doc, request.env.livemode);
    },
  );

  routes.get(
    '/v1/nature/profiles/:id',
    {
      schema: {
        tags: ['profiles'],
        summary: 'Retrieve a profile',
        description: 'By the profile id that the nature.assessment.completed event carries.',
        params: z.strictObject({ id: z.string() }),
        response: { 200: profileResource, ...problems(404) },
      },
    },
    async (request) => {
      const doc = await request.env.readModels.get('profiles', request.params.id);
      if (!doc) throw new ProblemError('profile_not_found', `No profile ${request.params.id}.`);
      return toProfileResource(doc, request.env.livemode);
    },
  );
}
