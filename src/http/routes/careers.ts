import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CareersIndex } from '../../careers/careers-index.js';
import type { Career, ConstructProfile, Occupation, OccupationMatch } from '../../careers/catalogue.js';
import { pageOf } from '../lists.js';
import { CATALOGUE_MISSING_DETAIL, ProblemError } from '../problem.js';
import type { RouteRequest } from '../route-handler.js';
import {
  type CareerMatchResource,
  type CareerResource,
  getCareerSchema,
  listCareersSchema,
  matchCareersSchema,
} from './careers-schemas.js';
import { profileById } from './profiles.js';

/** Where the app finds the catalogue it serves now: undefined until an operator imports one (src/wiring/careers-source.ts). */
export interface CareersCatalogue {
  current(): CareersIndex | undefined;
}

/** A server nobody gave a catalogue source: every careers route answers 503 careers_catalogue_missing. */
export const noCareersCatalogue: CareersCatalogue = { current: () => undefined };

/** How many of an occupation's titles a match shows. */
const TITLES_PER_MATCH = 5;

export function registerCareerRoutes(app: FastifyInstance, careers: CareersCatalogue): void {
  const served = (): CareersIndex => {
    const index = careers.current();
    if (index === undefined) throw new ProblemError('careers_catalogue_missing', CATALOGUE_MISSING_DETAIL);
    return index;
  };
  // Before validation: a server without a catalogue says so whatever the request asks. A callback, as the app's other hooks.
  const preValidation = (_request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    if (careers.current() === undefined) return done(new ProblemError('careers_catalogue_missing', CATALOGUE_MISSING_DETAIL));
    done();
  };
  const config = { scope: 'careers:read' as const };
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get('/v1/careers', { schema: listCareersSchema, config, preValidation }, (request) => listCareers(served(), request));
  routes.get('/v1/careers/:id', { schema: getCareerSchema, config, preValidation }, (request) => getCareer(served(), request.params.id));
  routes.post('/v1/careers/matches', { schema: matchCareersSchema, config, preValidation }, (request) => matchCareers(served(), request));
}

function listCareers(index: CareersIndex, request: RouteRequest<typeof listCareersSchema>) {
  const { query, job_zone, occupation_code } = request.query;
  const found = index.search({
    ...(query !== undefined && { query }),
    ...(job_zone !== undefined && { jobZones: job_zone }),
    ...(occupation_code !== undefined && { occupationCode: occupation_code }),
  });
  const page = pageOf(found, request.query);
  return {
    object: 'list' as const,
    data: page.data.map((career) => careerOf(index, career)),
    has_more: page.has_more,
    catalogue_version: index.version,
  };
}

function getCareer(index: CareersIndex, id: string) {
  const career = index.career(id);
  if (career === undefined) throw new ProblemError('career_not_found', `No career ${id}.`);
  return { ...careerOf(index, career), catalogue_version: index.version };
}

async function matchCareers(index: CareersIndex, request: RouteRequest<typeof matchCareersSchema>) {
  const { profile_id: profileId, profile, job_zone, limit } = request.body;
  const person = profileId === undefined ? profile! : await profileScores(request, profileId);
  const matches = index.match(person, { limit, ...(job_zone !== undefined && { jobZones: job_zone }) });
  return {
    object: 'list' as const,
    data: matches.map((match) => matchOf(index, match)),
    has_more: false as const,
    catalogue_version: index.version,
    profile_id: profileId ?? null,
  };
}

/** A stored profile's scores, read as GET /v1/nature/profiles/{id} reads it: that route's scope, 404 and 410 too. */
async function profileScores(request: RouteRequest<typeof matchCareersSchema>, id: string): Promise<ConstructProfile> {
  if (!request.apiKey.scopes.includes('nature:read')) {
    throw new ProblemError(
      'insufficient_scope',
      `Matching a stored profile reads it, which needs the nature:read scope too; the key has ${request.apiKey.scopes.join(', ')}.`,
      { required_scope: 'nature:read' },
    );
  }
  const { natures, intelligences } = await profileById(request.env, id);
  // The profile route's schema holds the 19 names: its records are a ConstructProfile's.
  return { natures, intelligences } as ConstructProfile;
}

function occupationOf(occupation: Occupation): CareerResource['occupation'] {
  const { code, title, description, jobZone, riasec, related } = occupation;
  return { code, title, description, job_zone: jobZone, riasec, related };
}

function careerOf(index: CareersIndex, career: Career): CareerResource {
  const occupation = index.occupation(career.occupationCode)!;
  return {
    id: career.id,
    object: 'career',
    title: career.title,
    title_kind: career.titleKind,
    occupation: occupationOf(occupation),
    profile: occupation.profile,
  };
}

function matchOf(index: CareersIndex, { occupation, fit, explanation }: OccupationMatch): CareerMatchResource {
  return {
    object: 'career_match',
    occupation: occupationOf(occupation),
    titles: index
      .titlesOf(occupation.code)
      .slice(0, TITLES_PER_MATCH)
      .map(({ id, title, titleKind }) => ({ id, title, title_kind: titleKind })),
    fit,
    explanation,
  };
}
