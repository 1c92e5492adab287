import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import type { JobZone } from '../../careers/catalogue.js';
import { intelligences, natures } from '../../scoring/constructs.js';
import { listOf, listQuery } from '../lists.js';
import { exampleIds, problems, success } from '../schemas.js';

// The careers routes' schemas (contract, "Careers (v1.0.5)"): what each takes and answers, and what the OpenAPI
// document says of it.

/** O*NET's licence asks for it wherever the data is shown; the document is built once, so it names no release. */
export const ONET_ATTRIBUTION =
  'This service includes information from the O*NET Database (the release each response names in `catalogue_version`) by USDOL/ETA, used under CC BY 4.0 (https://www.onetcenter.org/license_db.html).';

/** How many of an occupation's titles a match shows. */
export const TITLES_PER_MATCH = 5;

const EXAMPLE_VERSION = 'onet-27.0/careers-map-v1';
const catalogueVersion = z
  .string()
  .meta({ pattern: '^onet-[0-9.]+/[a-z0-9-]+$', examples: [EXAMPLE_VERSION] })
  .describe('The catalogue answering: the O*NET release and the mapping that derived the profiles.');

const score = z.number().min(0).max(1);
const family = <K extends string>(names: readonly K[]) =>
  z.strictObject(Object.fromEntries(names.map((name) => [name, score])) as Record<K, typeof score>);
const constructProfile = z.object({
  natures: family(natures).describe('9 values, 0.0..1.0, alphabetical'),
  intelligences: family(intelligences).describe('10 values, 0.0..1.0, alphabetical'),
});

const jobZone = z.number().int().min(1).max(5).describe("O*NET's job zone: 1 (little or no preparation) .. 5 (extensive preparation).");

const careerId = z
  .string()
  .meta({ pattern: '^car_', examples: ['car_3f9a1c0b2d4e5f60'] })
  .describe('car_ and a part that stays the same across imports of the same occupation and title.');

const exampleOccupation = {
  code: '29-1141.00',
  title: 'Registered Nurses',
  description: 'Assess patient health problems and needs, develop and implement nursing care plans, and maintain medical records.',
  job_zone: 3,
  riasec: 'SIC',
  related: ['29-1171.00'],
};

export const occupationResource = z
  .object({
    code: z
      .string()
      .meta({ pattern: '^[0-9]{2}-[0-9]{4}\\.[0-9]{2}$', examples: ['29-1141.00'] })
      .describe('O*NET-SOC code.'),
    title: z.string().meta({ examples: ['Registered Nurses'] }),
    description: z.string(),
    job_zone: jobZone.nullable().describe('1..5, or null where the release rates none.'),
    riasec: z
      .string()
      .meta({ pattern: '^[RIASEC]{0,6}$', examples: ['SIC'] })
      .describe('Its highest RIASEC interests, highest first.'),
    related: z.array(z.string()).describe('Codes of related occupations, in the release’s order.'),
  })
  .meta({ id: 'Occupation', examples: [exampleOccupation] });

const exampleProfile = {
  natures: Object.fromEntries(natures.map((name) => [name, name === 'healing' ? 0.95 : 0.3])),
  intelligences: Object.fromEntries(intelligences.map((name) => [name, name === 'interpersonal' ? 0.85 : 0.3])),
};
const exampleCareer = {
  id: 'car_3f9a1c0b2d4e5f60',
  object: 'career',
  title: 'Emergency Room Nurse',
  title_kind: 'alternate',
  occupation: exampleOccupation,
  profile: exampleProfile,
};

const careerFields = {
  id: careerId,
  object: z.literal('career'),
  title: z.string().meta({ examples: ['Emergency Room Nurse'] }),
  title_kind: z
    .enum(['occupation', 'alternate', 'reported'])
    .describe("The occupation's own title, an alternate title, or one its workers reported."),
  occupation: occupationResource,
  profile: constructProfile
    .nullable()
    .describe(
      'How much the occupation calls on each construct, 0..1, alphabetical; null where the release lacked the ratings to derive one (it is then never matched).',
    ),
};

export const careerResource = z.object(careerFields).meta({ id: 'Career', examples: [exampleCareer] });
const retrievedCareer = z
  .object({ ...careerFields, catalogue_version: catalogueVersion })
  .meta({ id: 'RetrievedCareer', examples: [{ ...exampleCareer, catalogue_version: EXAMPLE_VERSION }] });

export type CareerResource = z.infer<typeof careerResource>;

const contribution = z.object({
  person: score.describe("The person's score."),
  demand: score.describe("The occupation's demand."),
  contribution: z.number().describe('Its share of the fit: the shares and 0.5 add up to the fit.'),
});
const explained = <K extends string>(names: readonly K[]) =>
  z.object(Object.fromEntries(names.map((name) => [name, contribution])) as Record<K, typeof contribution>);

/** A nurse-like person against Registered Nurses, as the example of a match: the shares and 0.5 add up to the fit. */
function exampleMatch() {
  const explain = (family: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(family).map(([name, demand]) => [name, { person: demand, demand, contribution: demand > 0.5 ? 0.115 : 0.01 }]),
    );
  return {
    object: 'career_match',
    occupation: exampleOccupation,
    titles: [
      { id: 'car_9b2e4d1a7c3f5e80', title: 'Registered Nurses', title_kind: 'occupation' },
      { id: 'car_3f9a1c0b2d4e5f60', title: 'Emergency Room Nurse', title_kind: 'alternate' },
    ],
    fit: 0.9,
    explanation: { natures: explain(exampleProfile.natures), intelligences: explain(exampleProfile.intelligences) },
  };
}

export const titleRef = z.object({ id: careerId, title: z.string(), title_kind: careerFields.title_kind }).meta({ id: 'CareerTitle' });

const careerMatch = z
  .object({
    object: z.literal('career_match'),
    occupation: occupationResource,
    titles: z
      .array(titleRef)
      .max(TITLES_PER_MATCH)
      .describe(`Up to ${TITLES_PER_MATCH} of the occupation's careers, its own title first: fetch one with GET /v1/careers/{id}.`),
    fit: score.describe('How well the profile fits the occupation, 0..1 (0.5: no better than chance); deterministic.'),
    explanation: z
      .object({ natures: explained(natures), intelligences: explained(intelligences) })
      .describe('Per construct, alphabetical: the person’s score, the occupation’s demand, and its contribution to the fit.'),
  })
  .meta({ id: 'CareerMatch', examples: [exampleMatch()] });

const JOB_ZONES = /^[1-5](,[1-5])*$/;

const careersQuery = z.strictObject({
  ...listQuery,
  query: z.string().min(1).max(200).optional().describe('Words of a title: case- and accent-insensitive; the list is then by relevance.'),
  job_zone: z
    .string()
    .regex(JOB_ZONES, 'must be job zones 1..5, comma-separated, such as 3 or 3,4.')
    .transform((value) => [...new Set(value.split(',').map(Number))] as JobZone[])
    .optional()
    .meta({ examples: ['3,4'] })
    .describe('Job zones 1..5, comma-separated (a query parameter is given once): careers of occupations in any of them.'),
  occupation_code: z
    .string()
    .regex(/^[0-9]{2}-[0-9]{4}\.[0-9]{2}$/, 'must be an O*NET-SOC code such as 29-1141.00.')
    .optional()
    .describe("One occupation's careers."),
});

export const listCareersSchema = {
  tags: ['careers'],
  operationId: 'listCareers',
  summary: 'Search careers',
  description: `Every title of every occupation, filtered by words of the title, job zones and occupation: by relevance with a query, else by title. A cursor list. ${ONET_ATTRIBUTION}`,
  querystring: careersQuery,
  response: {
    200: success('A page of careers.', listOf(careerResource).extend({ catalogue_version: catalogueVersion }).meta({ id: 'CareerList' })),
    ...problems('invalid_cursor', 'careers_catalogue_missing'),
  },
} satisfies FastifySchema;

export const getCareerSchema = {
  tags: ['careers'],
  operationId: 'getCareer',
  summary: 'Retrieve a career',
  description: `The career with its occupation and the occupation's construct profile. ${ONET_ATTRIBUTION}`,
  params: z.strictObject({ id: careerId }),
  response: {
    200: success('The career.', retrievedCareer),
    ...problems('career_not_found', 'careers_catalogue_missing'),
  },
} satisfies FastifySchema;

const matchBody = z
  .strictObject({
    profile_id: z
      .string()
      .min(1)
      .optional()
      .meta({ examples: [exampleIds.profile] })
      .describe('A profile of this environment to match (needs nature:read too); or give `profile`.'),
    profile: z
      .strictObject({ natures: family(natures), intelligences: family(intelligences) })
      .optional()
      .describe('Scores to match, all 19, 0..1; or give `profile_id`.'),
    job_zone: z
      .array(jobZone)
      .min(1)
      .max(5)
      .transform((zones) => zones as JobZone[])
      .optional()
      .describe('Only occupations in these job zones.'),
    limit: z.number().int().min(1).max(100).default(20).describe('How many occupations, 1..100 (default 20).'),
  })
  .superRefine((body, ctx) => {
    if (body.profile_id !== undefined && body.profile !== undefined)
      ctx.addIssue({ code: 'custom', path: ['profile'], message: 'cannot be combined with `profile_id`: give one of them.' });
    if (body.profile_id === undefined && body.profile === undefined)
      ctx.addIssue({ code: 'custom', path: [], message: 'must have `profile_id` or `profile`.' });
  })
  .meta({ id: 'MatchCareersRequest', examples: [{ profile_id: exampleIds.profile, job_zone: [3, 4], limit: 10 }] });

export const matchCareersSchema = {
  tags: ['careers'],
  operationId: 'matchCareers',
  summary: 'Match a profile to occupations',
  description: `Occupations ordered by fit to a profile, highest first, ties by code, each with up to 5 titles and the fit explained construct by construct (see /docs/careers for the method). A profile named by id is read as GET /v1/nature/profiles/{id} reads it, so the key needs nature:read too. Nothing is stored. ${ONET_ATTRIBUTION}`,
  body: matchBody,
  response: {
    200: success(
      'The best-fitting occupations.',
      z
        .object({
          object: z.literal('list'),
          data: z.array(careerMatch),
          has_more: z.literal(false),
          catalogue_version: catalogueVersion,
          profile_id: z.string().nullable().describe('The profile matched, or null for an inline profile.'),
        })
        .meta({ id: 'CareerMatchList' }),
    ),
    ...problems('profile_not_found', 'subject_erased', 'careers_catalogue_missing'),
  },
} satisfies FastifySchema;
