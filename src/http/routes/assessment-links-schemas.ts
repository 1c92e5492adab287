import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { LINK_TTL, linkStatuses } from '../../domain/assessment-link.js';
import { languages } from '../../scoring/languages.js';
import { listOf, listQuery } from '../lists.js';
import { exampleIds, id, problems, success, timestamp } from '../schemas.js';

// The assessment link routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

const EXAMPLE_LINK = 'lnk_01JD4ZD3M6P8R0TV2X4Z6B8D0F';
const subjectId = id('sub', exampleIds.subject, 'The subject id.');
const linkId = id('lnk', EXAMPLE_LINK, 'The assessment link id.');

const linkFields = {
  id: linkId,
  object: z.literal('assessment_link'),
  subject_id: subjectId,
  status: z
    .enum(linkStatuses)
    .describe(
      'active: not opened yet; opened: its assessment is under way; completed: the person finished; expired: not opened before expires_at, or its assessment closed unfinished; revoked: revoked, or its subject erased.',
    ),
  language: z.enum(languages).describe('The language of the hosted page and of the assessment it starts.'),
  result_visible_to_subject: z
    .boolean()
    .describe('Whether the page shows the person their result at the end (for 24 hours after completion, as a client secret would).'),
  return_url: z.string().nullable().describe('Where the page offers to take the person back to at the end; null: nowhere.'),
  assessment_id: id('asm', exampleIds.assessment, 'The assessment its first opening started; null until opened.').nullable(),
  livemode: z.boolean(),
  created_at: timestamp,
  expires_at: timestamp.describe('The link can be opened until then; once opened, it lasts as long as its assessment.'),
  opened_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
};

const example = {
  id: EXAMPLE_LINK,
  object: 'assessment_link',
  subject_id: exampleIds.subject,
  status: 'active',
  language: 'en',
  result_visible_to_subject: true,
  return_url: 'https://app.example.com/assessment-done',
  assessment_id: null,
  livemode: false,
  created_at: '2026-11-21T19:20:57.021Z',
  expires_at: '2026-11-28T19:20:57.021Z',
  opened_at: null,
  revoked_at: null,
} as const;

const linkResource = z.object(linkFields).meta({ id: 'AssessmentLink', examples: [example] });
export type LinkResource = z.infer<typeof linkResource>;

const createdLinkResource = z
  .object({
    ...linkFields,
    url: z
      .string()
      .describe(
        "The page to send the person to (by e-mail, a message, a redirect). Its last segment is the link's token: shown only here (and in a replay of this create with the same Idempotency-Key, for 24 h); only its hash is kept.",
      ),
  })
  .meta({
    id: 'CreatedAssessmentLink',
    examples: [{ ...example, url: `https://nature.example.com/a/test_${EXAMPLE_LINK}_${'Q3vR8'.repeat(8)}` }],
  });

const createBody = z
  .strictObject({
    expires_in_seconds: z
      .number()
      .int('must be a whole number of seconds.')
      .min(LINK_TTL.min, `must be from ${LINK_TTL.min} (5 minutes) to ${LINK_TTL.max} (30 days).`)
      .max(LINK_TTL.max, `must be from ${LINK_TTL.min} (5 minutes) to ${LINK_TTL.max} (30 days).`)
      .default(LINK_TTL.default)
      .describe('How long the link can be opened, in seconds: 300 (5 minutes) to 2592000 (30 days); 604800 (7 days) by default.'),
    language: z.enum(languages).default('en').describe('The language of the page and of the assessment: en (default) or fr.'),
    return_url: z
      .string()
      .max(2048)
      .optional()
      .describe(
        "An https URL to offer the person at the end. Its origin must be one of the allowed origins of this environment's publishable (pk) keys.",
      ),
    result_visible_to_subject: z
      .boolean()
      .default(false)
      .describe('Show the person their result at the end (as result_visible_to_subject does for a started assessment).'),
  })
  .meta({
    id: 'CreateAssessmentLinkRequest',
    examples: [{ expires_in_seconds: 259200, language: 'fr', return_url: 'https://app.example.com/assessment-done' }],
  })
  .nullish();

const subjectParams = z.strictObject({ id: subjectId });
const linkParams = z.strictObject({ id: linkId });

export const createAssessmentLinkSchema = {
  tags: ['assessments'],
  operationId: 'createAssessmentLink',
  summary: 'Create a hosted assessment link',
  description:
    'A single-use page on this service where the subject answers the assessment, in its language, under your organisation’s name, and is offered return_url at the end. ' +
    'Its first opening starts the assessment (as POST …/assessments would, so one open assessment per subject holds then); later openings resume it, and after completion the page shows the ending (and the result, with result_visible_to_subject). ' +
    'The url is shown only here.',
  params: subjectParams,
  body: createBody,
  response: {
    201: success('The link, with the url to send the person to: shown only here.', createdLinkResource),
    ...problems('not_found', 'subject_erased', 'plan_quota_exceeded'),
  },
} satisfies FastifySchema;

export const listAssessmentLinksSchema = {
  tags: ['assessments'],
  operationId: 'listAssessmentLinks',
  summary: "List a subject's assessment links",
  description: 'Newest first, with each one’s status; never their urls.',
  params: subjectParams,
  querystring: z.strictObject(listQuery),
  response: {
    200: success("A page of the subject's links, newest first.", listOf(linkResource)),
    ...problems('invalid_cursor', 'not_found', 'subject_erased'),
  },
} satisfies FastifySchema;

export const getAssessmentLinkSchema = {
  tags: ['assessments'],
  operationId: 'getAssessmentLink',
  summary: 'Retrieve an assessment link',
  description: 'Its status and the assessment it started; never its url.',
  params: linkParams,
  response: { 200: success('The link.', linkResource), ...problems('not_found', 'subject_erased') },
} satisfies FastifySchema;

export const revokeAssessmentLinkSchema = {
  tags: ['assessments'],
  operationId: 'revokeAssessmentLink',
  summary: 'Revoke an assessment link',
  description:
    'From now on its page says the link is no longer valid and its token calls nothing; an assessment it started stays as it is (abandon it with DELETE if you wish). Revoking a revoked link changes nothing.',
  params: linkParams,
  body: z.strictObject({}).nullish(),
  response: { 200: success('The link, revoked.', linkResource), ...problems('not_found', 'subject_erased') },
} satisfies FastifySchema;
