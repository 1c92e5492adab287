import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { intelligences, natures } from '../../scoring/constructs.js';
import { languages } from '../../scoring/languages.js';
import { SITUATIONAL_METHOD_VERSION } from '../../situational/alignment.js';
import { listOf, listQuery } from '../lists.js';
import { codePoints, exampleIds, hasControlCharacter, id, problems, success, timestamp } from '../schemas.js';

// The situational routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

export const SITUATION_MIN = 20;
export const SITUATION_MAX = 4000;

const situationalId = id('sit', exampleIds.situational, 'The situational assessment id.');
const subjectId = id('sub', exampleIds.subject, 'The subject id.');

/** Control characters other than line breaks and tabs, which a situation told in paragraphs has. */
const controlButBreaks = (value: string) => hasControlCharacter(value.replace(/[\t\n\r]/g, ''));

const situationContext = z
  .string()
  .refine(
    (value) => codePoints(value) >= SITUATION_MIN && codePoints(value) <= SITUATION_MAX,
    `must be ${SITUATION_MIN} to ${SITUATION_MAX} characters long.`,
  )
  .refine((value) => !controlButBreaks(value), 'must not contain control characters other than line breaks and tabs.')
  .meta({
    minLength: SITUATION_MIN,
    maxLength: SITUATION_MAX,
    examples: [
      'Leading a small team through a hard deadline: planning the work, keeping everyone calm and explaining the changes to the client.',
    ],
  })
  .describe('The situation, in free text (English or French): personal data, sealed at rest, never logged, erased with the subject.');

const scores = (names: readonly string[], description: string) =>
  z.object(Object.fromEntries(names.map((name) => [name, z.number().min(0).max(1)]))).describe(description);

const exampleSituation = {
  natures: { ...Object.fromEntries(natures.map((name) => [name, 0])), administrative: 0.487, educative: 0.284 },
  intelligences: { ...Object.fromEntries(intelligences.map((name) => [name, 0])), interpersonal: 0.632, linguistic: 0.284 },
};

export const situationalResource = z
  .object({
    id: situationalId,
    object: z.literal('situational_assessment'),
    status: z.enum(['pending', 'completed', 'failed']).describe('pending until it is read (seconds); completed or failed is final.'),
    subject_id: subjectId,
    profile_id: id('prf', exampleIds.profile, "The subject's latest completed profile when asked: the one the situation is read against."),
    language: z.enum(languages).describe('The language the situation is read in and the narrative told in.'),
    livemode: z.boolean(),
    created_at: timestamp,
    situation: z
      .object({
        natures: scores(natures, 'Per Nature, alphabetical.'),
        intelligences: scores(intelligences, 'Per Intelligence, alphabetical.'),
      })
      .describe('completed: what the situation draws on, 0..1 per construct (0: not mentioned).')
      .optional(),
    alignment: z
      .object({
        overall: z
          .number()
          .min(0)
          .max(1)
          .describe('The mean of the per-construct alignments weighted by demand: constructs it does not draw on weigh nothing.'),
        natures: scores(natures, 'Per Nature, alphabetical.'),
        intelligences: scores(intelligences, 'Per Intelligence, alphabetical.'),
      })
      .describe('completed: how the profile meets the demand, per construct 1 − max(0, demand − score), 0..1.')
      .optional(),
    narrative: z.string().describe("completed: 2–5 sentences in the assessment's language; never a ranking of the person.").optional(),
    failure_code: z
      .enum(['situation_unclear'])
      .describe('failed: why. situation_unclear: too little of the text could be read.')
      .optional(),
    method_version: z
      .string()
      .meta({ examples: [SITUATIONAL_METHOD_VERSION] })
      .describe('completed or failed: the method that read it.')
      .optional(),
    completed_at: timestamp.describe('completed or failed: when it was read.').optional(),
  })
  .meta({
    id: 'SituationalAssessment',
    examples: [
      {
        id: exampleIds.situational,
        object: 'situational_assessment',
        status: 'completed',
        subject_id: exampleIds.subject,
        profile_id: exampleIds.profile,
        language: 'en',
        livemode: false,
        created_at: '2026-11-21T19:30:00.000Z',
        situation: exampleSituation,
        alignment: {
          overall: 0.912,
          natures: Object.fromEntries(natures.map((name) => [name, 1])),
          intelligences: { ...Object.fromEntries(intelligences.map((name) => [name, 1])), interpersonal: 0.757 },
        },
        narrative:
          'This situation draws most on interpersonal intelligence and the administrative nature. The profile meets the administrative side of it in full. It meets most of what the situation asks of interpersonal intelligence.',
        method_version: SITUATIONAL_METHOD_VERSION,
        completed_at: '2026-11-21T19:30:00.412Z',
      },
    ],
  });

export type SituationalResource = z.infer<typeof situationalResource>;

const requestBody = z.strictObject({
  subject_id: subjectId,
  situation_context: situationContext,
  language: z.enum(languages).optional().describe("en or fr. Default: the language of the subject's latest completed assessment."),
});

export const createSituationalSchema = {
  tags: ['situational'],
  operationId: 'createSituationalAssessment',
  summary: 'Read a situation against a profile',
  description:
    "Asks how the subject's latest completed profile meets a situation told in free text. Answers 202 at once with a pending " +
    'assessment; it is read within seconds, then situational.assessment.completed is sent to endpoints listening to it, and the GET ' +
    'shows the result. Needs an sk key with situational:write. See /docs/situational for the method and what it cannot do.',
  body: requestBody,
  response: {
    202: success('Accepted: pending until it is read.', situationalResource),
    ...problems('not_found', 'profile_required', 'subject_erased', 'idempotency_key_in_use', 'idempotency_key_reused'),
  },
} satisfies FastifySchema;

export const getSituationalSchema = {
  tags: ['situational'],
  operationId: 'getSituationalAssessment',
  summary: 'Retrieve a situational assessment',
  description: 'Pending, completed with its result, or failed with its failure_code. Needs situational:read.',
  params: z.strictObject({ id: situationalId }),
  response: { 200: success('The situational assessment.', situationalResource), ...problems('not_found', 'subject_erased') },
} satisfies FastifySchema;

export const listSituationalSchema = {
  tags: ['situational'],
  operationId: 'listSituationalAssessments',
  summary: 'List situational assessments',
  description: "Newest first; a subject's only with subject_id. Those of erased subjects are left out. Needs situational:read.",
  querystring: z.strictObject({ subject_id: subjectId.optional(), ...listQuery }),
  response: {
    200: success('A page of situational assessments.', listOf(situationalResource)),
    ...problems('not_found', 'subject_erased', 'invalid_cursor'),
  },
} satisfies FastifySchema;
