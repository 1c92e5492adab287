import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { intelligences, natures } from '../../scoring/constructs.js';
import { items } from '../../scoring/item-bank.js';
import { languages } from '../../scoring/languages.js';
import { indicatorNames } from '../../scoring/quality.js';
import { describeScores } from '../../scoring/scorer.js';
import { NEWEST_SCORING_VERSION, scorers } from '../../scoring/scorers.js';
import { exampleIds, id, problems, skOrPkWithSecret, success, timestamp } from '../schemas.js';

// The profile routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

export const profileId = id('prf', exampleIds.profile, 'The profile id.');

const scoresOf = (names: readonly string[]) => z.strictObject(Object.fromEntries(names.map((name) => [name, z.number().min(0).max(1)])));

const description = z.object({
  construct: z.string(),
  band: z.enum(['medium_high', 'high', 'very_high']).describe('Only raw scores of 7 or more are described.'),
  text: z.string(),
});

/** A profile the scorer really makes, from a varied set of answers, as the document's example. */
const exampleScores = scorers[NEWEST_SCORING_VERSION]!(
  Object.fromEntries(items.map((item, index) => [item.id, 1 + ((index * 7 + Math.floor(index / 19)) % 5)])),
  // Timing as the web component sends it: an answer every 4 to 6 seconds.
  Object.fromEntries(
    items.map((item, index) => [
      item.id,
      {
        answered_at: new Date(Date.UTC(2026, 10, 21, 19, 19, 0) + index * 5000).toISOString(),
        response_time_ms: 4000 + ((index * 389) % 2000),
      },
    ]),
  ),
);
const exampleProfile = {
  id: exampleIds.profile,
  object: 'profile',
  subject_id: exampleIds.subject,
  assessment_id: exampleIds.assessment,
  ...exampleScores,
  descriptions: describeScores(exampleScores, 'en'),
  language: 'en',
  status: 'current',
  superseded_by: null,
  livemode: false,
  created_at: '2026-11-21T19:25:12.448Z',
};

const indicator = (description: string, unit: z.ZodNumber | z.ZodNullable<z.ZodNumber>) =>
  z.object({ value: unit, threshold: z.number(), flagged: z.boolean() }).describe(description);

const qualitySchema = z
  .object({
    version: z
      .string()
      .meta({ examples: ['quality-v2'] })
      .describe('The indicators and thresholds the profile was judged by (quality-v1 for profiles scored before quality-v2).'),
    flagged: z.boolean().describe('Whether any indicator is flagged.'),
    reasons: z.array(z.enum(indicatorNames)).describe('The flagged indicators, in the order of `indicators`.'),
    indicators: z.object({
      longest_identical_run: indicator(
        'The longest run of one answer in item order (long-string index); flagged at the threshold or more.',
        z.number().int(),
      ),
      response_variability: indicator('The standard deviation of the 76 answers; flagged below the threshold.', z.number()),
      construct_inconsistency: indicator(
        'The pooled standard deviation of answers within each construct; flagged above the threshold (about 1.41 for random answers).',
        z.number(),
      ),
      too_fast_share: indicator(
        'The share of timed items answered in under 1 s; flagged at the threshold or more. Null with fewer than 19 timed items (a quarter of the bank).',
        z.number().nullable(),
      ),
      completion_seconds: indicator(
        'Seconds from the first answer to the last; flagged below the threshold. Null without timing.',
        z.number().nullable(),
      ),
    }),
  })
  .meta({ id: 'ProfileQuality' });

export const profileResource = z
  .object({
    id: profileId,
    object: z.literal('profile'),
    subject_id: id('sub', exampleIds.subject),
    assessment_id: id('asm', exampleIds.assessment),
    scoring_version: z.string().meta({ examples: [NEWEST_SCORING_VERSION] }),
    language: z
      .enum(languages)
      .describe("The assessment's language, which the narratives are in (descriptions.version v1 in English, v1-fr in French)."),
    natures: scoresOf(natures).describe('9 scores, 0.0..1.0, alphabetical'),
    intelligences: scoresOf(intelligences).describe('10 scores, 0.0..1.0, alphabetical'),
    descriptions: z.object({
      version: z.string(),
      natures: z.array(description).max(3),
      intelligences: z.array(description).max(3),
    }),
    quality: qualitySchema
      .nullable()
      .describe(
        'Indicators of careless responding (/docs/quality): a reason to look, not a verdict; they never change a score. Null for profiles scored before they existed, until a profile rebuild.',
      ),
    status: z
      .enum(['current', 'superseded'])
      .describe(
        "superseded: a profile rebuild re-scored the assessment with the active scoring version; superseded_by is the assessment's current profile.",
      ),
    superseded_by: id('prf', exampleIds.profile).nullable(),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Profile', examples: [exampleProfile] });

export type ProfileResource = z.infer<typeof profileResource>;

export const getLatestProfileSchema = {
  tags: ['profiles'],
  operationId: 'getLatestProfile',
  summary: "The subject's latest profile",
  description:
    'The current profile of the most recently completed assessment: scored with the active scoring version once a profile rebuild ' +
    'has switched to it, else with the version that scored the completion. 404 profile_not_found until one completes.',
  params: z.strictObject({ id: id('sub', exampleIds.subject, 'The subject id.') }),
  response: {
    200: success("The profile of the subject's latest completed assessment.", profileResource),
    ...problems('not_found', 'profile_not_found', 'subject_erased'),
  },
  security: skOrPkWithSecret,
} satisfies FastifySchema;

export const getProfileSchema = {
  tags: ['profiles'],
  operationId: 'getProfile',
  summary: 'Retrieve a profile',
  description:
    'By the profile id that a nature.assessment.completed or nature.profile.updated event carries. A profile that a rebuild replaced ' +
    'still answers, with status superseded and a link to the current one.',
  params: z.strictObject({ id: profileId }),
  response: { 200: success('The profile.', profileResource), ...problems('profile_not_found', 'subject_erased') },
  security: skOrPkWithSecret,
} satisfies FastifySchema;
