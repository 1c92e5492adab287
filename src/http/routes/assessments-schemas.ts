import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { ITEM_COUNT, ITEM_SET_VERSION, itemIds, items } from '../../scoring/item-bank.js';
import { languages } from '../../scoring/languages.js';
import { listOf, listQuery } from '../lists.js';
import { exampleIds, id, problems, skOrPkWithSecret, success, timestamp } from '../schemas.js';

// The assessment routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

const subjectId = id('sub', exampleIds.subject, 'The subject id.');
const assessmentId = id('asm', exampleIds.assessment, 'The assessment id.');

/** The ids of the items after the first `answered`, as an example's unanswered_item_ids. */
const unansweredAfter = (answered: number) => items.slice(answered).map((item) => item.id);

export const assessmentResource = z
  .object({
    id: assessmentId,
    object: z.literal('assessment'),
    subject_id: subjectId,
    status: z.enum(['created', 'in_progress', 'scoring', 'completed', 'abandoned', 'expired']),
    language: z
      .enum(languages)
      .describe(
        'The language the assessment is given in (its items, answer labels and narratives): the one asked for at the start. Assessments started before French came (v1.0.5) are en.',
      ),
    requested_language: z.enum(languages).describe('The language asked for at the start.'),
    item_set_version: z.string().meta({ examples: [ITEM_SET_VERSION] }),
    responses_received: z
      .number()
      .int()
      .meta({ examples: [19] }),
    responses_required: z
      .number()
      .int()
      .meta({ examples: [ITEM_COUNT] }),
    unanswered_item_ids: z.array(z.string().meta({ pattern: '^mn_0[0-7][0-9]$' })).meta({ examples: [unansweredAfter(19)] }),
    profile_id: id('prf', exampleIds.profile, 'Null until the assessment is completed.').nullable(),
    result_visible_to_subject: z
      .boolean()
      .describe(
        "Whether the client secret, with a pk key, may read this assessment's profile and its chart for 24 hours after completion.",
      ),
    livemode: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    completed_at: timestamp.nullable(),
    expires_at: timestamp,
  })
  .meta({
    id: 'Assessment',
    examples: [
      {
        id: exampleIds.assessment,
        object: 'assessment',
        subject_id: exampleIds.subject,
        status: 'in_progress',
        language: 'en',
        requested_language: 'en',
        item_set_version: ITEM_SET_VERSION,
        responses_received: 19,
        responses_required: ITEM_COUNT,
        unanswered_item_ids: unansweredAfter(19),
        result_visible_to_subject: false,
        profile_id: null,
        livemode: false,
        created_at: '2026-11-21T19:21:04.310Z',
        updated_at: '2026-11-21T19:23:41.902Z',
        completed_at: null,
        expires_at: '2026-11-28T19:21:04.310Z',
      },
    ],
  });

export type AssessmentResource = z.infer<typeof assessmentResource>;

/** The start's answer: the assessment with its client secret, shown this once (only its hash is kept, and an Idempotency-Key's sealed replay). */
const startedAssessment = assessmentResource
  .extend({
    client_secret: z
      .string()
      .describe(
        'Hand it to the page that lets the subject answer: with a publishable (pk) key, in the Nature-Client-Secret header, it reads and answers this one assessment while it is open. Shown only here (and in a replay of this start with the same Idempotency-Key, for 24 h): only its hash is kept with the assessment.',
      )
      .meta({ pattern: '^asm_[0-9A-Za-z]+_secret_[0-9A-Za-z]{40}$', examples: [`${exampleIds.assessment}_secret_${'x7Kq2'.repeat(8)}`] }),
  })
  .meta({ id: 'StartedAssessment' });

/** The routes a pk key may call with an assessment's client secret (auth.ts checks it). */
export const withClientSecret = { publishable: true, clientSecret: true } as const;

const subjectParams = z.strictObject({ id: subjectId });
const assessmentParams = z.strictObject({ id: subjectId, assessment_id: assessmentId });

const startBody = z
  .strictObject({
    language: z
      .enum(languages)
      .default('en')
      .describe(
        'The language of the assessment: en (English, the default) or fr (French). Its items (GET /v1/nature/items?language=fr), answer labels and narratives are in it; the scores never depend on it.',
      ),
    result_visible_to_subject: z
      .boolean()
      .default(false)
      .describe(
        "Let the person see their result: with it, the client secret and a pk key read this assessment's profile and its chart for 24 hours after completion. Without it, a completed assessment's secret reads nothing.",
      ),
  })
  .meta({ id: 'StartAssessmentRequest', examples: [{ language: 'en' }] })
  // Fastify passes a request without a body as null.
  .nullish();

const ANSWER_VALUE = 'must be a whole number from 1 to 5.';

const responsesBody = z
  .strictObject({
    responses: z
      .array(
        z.strictObject({
          item_id: z
            .string()
            .refine((id) => itemIds.has(id), 'is not an item id; GET /v1/nature/items lists them.')
            .describe('mn_001..mn_076'),
          value: z
            .number()
            .int(ANSWER_VALUE)
            .min(1, ANSWER_VALUE)
            .max(5, ANSWER_VALUE)
            .describe('1 = not at all like me … 5 = exactly like me'),
          answered_at: z.iso
            .datetime({ offset: true, message: 'must be an RFC 3339 timestamp, such as 2026-11-24T10:15:30.250Z.' })
            .optional()
            .describe(
              'Optional: when the person answered (RFC 3339), between the start of the assessment and now, with 120 s of clock skew allowed either way. For the answer-quality indicators only.',
            ),
          response_time_ms: z
            .number()
            .int('must be a whole number of milliseconds.')
            .min(0, 'must be from 0 to 3600000 ms.')
            .max(3_600_000, 'must be from 0 to 3600000 ms.')
            .optional()
            .describe('Optional: how long the person took on the item, in ms (0..3600000). For the answer-quality indicators only.'),
        }),
      )
      .min(1)
      .max(ITEM_COUNT)
      .superRefine((responses, ctx) => {
        const seen = new Set<string>();
        responses.forEach(({ item_id }, index) => {
          if (seen.has(item_id))
            ctx.addIssue({ code: 'custom', path: [index, 'item_id'], message: 'names an item answered earlier in this batch.' });
          seen.add(item_id);
        });
      })
      .describe('A batch of 1..76 answers, all stored or none.'),
  })
  .meta({
    id: 'SubmitResponsesRequest',
    examples: [{ responses: items.slice(0, 19).map((item, index) => ({ item_id: item.id, value: 1 + ((index * 3) % 5) })) }],
  });

export const startAssessmentSchema = {
  tags: ['assessments'],
  operationId: 'startAssessment',
  summary: 'Start an assessment',
  description:
    'One open assessment per subject: while one is created or in_progress, another start answers 409 assessment_in_progress. The body is optional: without one, the language is en. With language fr, the assessment is French: read its items with GET /v1/nature/items?language=fr; its profile is scored as in English, with French narratives. ' +
    'The answer carries the client_secret a browser uses with a publishable (pk) key, shown only here.',
  params: subjectParams,
  body: startBody,
  response: {
    201: success('The assessment, created, with the client_secret a browser answers it with: shown only here.', startedAssessment),
    ...problems('not_found', 'subject_erased', 'assessment_in_progress', 'plan_quota_exceeded'),
  },
} satisfies FastifySchema;

export const listAssessmentsSchema = {
  tags: ['assessments'],
  operationId: 'listAssessments',
  summary: "List a subject's assessments",
  description: "Newest first, with each one's status and progress.",
  params: subjectParams,
  querystring: z.strictObject(listQuery),
  response: {
    200: success("A page of the subject's assessments, newest first.", listOf(assessmentResource)),
    ...problems('invalid_cursor', 'not_found', 'subject_erased'),
  },
} satisfies FastifySchema;

export const getAssessmentSchema = {
  tags: ['assessments'],
  operationId: 'getAssessment',
  summary: 'Retrieve an assessment',
  description:
    'Its status (expired once 7 days passed without completion), progress, and its profile_id once completed. ' +
    "A browser may call it with a publishable (pk) key and the assessment's client secret while the assessment is open.",
  security: skOrPkWithSecret,
  params: assessmentParams,
  response: {
    200: success('The assessment, with its status and the items still unanswered.', assessmentResource),
    ...problems('not_found', 'subject_erased'),
  },
} satisfies FastifySchema;

export const submitResponsesSchema = {
  tags: ['assessments'],
  operationId: 'submitResponses',
  summary: 'Submit a batch of responses',
  description:
    'All-or-nothing. An item answered again with the same value changes nothing (safe to retry); with another value, the newer answer replaces the older. ' +
    'The batch that completes the 76 moves the assessment to scoring, and scoring starts by itself. ' +
    "A browser may call it with a publishable (pk) key and the assessment's client secret while the assessment is open.",
  security: skOrPkWithSecret,
  params: assessmentParams,
  body: responsesBody,
  response: {
    200: success(
      'The assessment with the batch stored: its progress, or its status once the 76th answer completed it.',
      assessmentResource,
    ),
    ...problems('not_found', 'subject_erased', 'assessment_not_open'),
  },
} satisfies FastifySchema;

export const abandonAssessmentSchema = {
  tags: ['assessments'],
  operationId: 'abandonAssessment',
  summary: 'Abandon an open assessment',
  description: 'Answers 200 with the abandoned assessment; one no longer open answers 409 assessment_not_open.',
  params: assessmentParams,
  response: {
    200: success('The assessment, abandoned.', assessmentResource),
    ...problems('not_found', 'subject_erased', 'assessment_not_open'),
  },
} satisfies FastifySchema;
