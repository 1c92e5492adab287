import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { abandonAssessment, startAssessment, submitResponses } from '../../commands/assessments.js';
import { type Assessment, type ItemResponse, statusAt } from '../../domain/assessment.js';
import { allAnswered, type Collections, type StoredAssessment } from '../../ports/collections.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import { ITEM_COUNT, ITEM_SET_VERSION, itemIds, items } from '../../scoring/item-bank.js';
import { languages } from '../../scoring/languages.js';
import { eventMetadata } from '../event-metadata.js';
import { listOf, listPage, listQuery } from '../lists.js';
import { openSealed, subjectGone } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import { exampleIds, id, problems, skOrPkWithSecret, success, timestamp } from '../schemas.js';
import { requireSubject } from './subjects.js';

const subjectId = id('sub', exampleIds.subject, 'The subject id.');
const assessmentId = id('asm', exampleIds.assessment, 'The assessment id.');

/** The ids of the items after the first `answered`, as an example's unanswered_item_ids. */
const unansweredAfter = (answered: number) => items.slice(answered).map((item) => item.id);

const assessmentResource = z
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

type AssessmentResource = z.infer<typeof assessmentResource>;

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
const withClientSecret = { publishable: true, clientSecret: true } as const;
/** An sk key alone, or a pk key with the assessment's client secret. */

/** The items a stored assessment has answered: every one once it is scored, else those of its batches, opened. */
async function answeredItems(doc: StoredAssessment, dataKeys: DataKeyStore): Promise<ReadonlySet<string>> {
  if (allAnswered(doc)) return new Set(itemIds);
  const batches = await openSealed<{ responses: ItemResponse[] }>(dataKeys, doc.subject_id, doc.responses);
  return new Set(batches.flatMap((batch) => batch.responses.map(({ item_id }) => item_id)));
}

const fromState = (assessment: Assessment, livemode: boolean, now: Date) =>
  toAssessmentResource(assessment, new Set(Object.keys(assessment.answers)), livemode, now);

/** An erased one was erased after its subject was read: 410, as after. */
async function fromDocument(doc: Collections['assessments'], dataKeys: DataKeyStore, livemode: boolean, now: Date) {
  if ('erased' in doc) throw subjectGone(doc.subject_id);
  return toAssessmentResource(doc, await answeredItems(doc, dataKeys), livemode, now);
}

function toAssessmentResource(
  assessment: Omit<Assessment, 'answers' | 'timing'>,
  answered: ReadonlySet<string>,
  livemode: boolean,
  now: Date,
): AssessmentResource {
  return {
    id: assessment.id,
    object: 'assessment',
    subject_id: assessment.subject_id,
    status: statusAt(assessment, now),
    language: assessment.language,
    requested_language: assessment.requested_language,
    item_set_version: assessment.item_set_version,
    responses_received: answered.size,
    responses_required: ITEM_COUNT,
    unanswered_item_ids: items.filter((item) => !answered.has(item.id)).map((item) => item.id),
    profile_id: assessment.profile_id,
    result_visible_to_subject: assessment.result_visible_to_subject === true,
    livemode,
    created_at: assessment.created_at,
    updated_at: assessment.updated_at,
    completed_at: assessment.completed_at,
    expires_at: assessment.expires_at,
  };
}

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

export function registerAssessmentRoutes(app: FastifyInstance, clock: () => Date): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/v1/nature/subjects/:id/assessments',
    {
      schema: {
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
          ...problems('not_found', 'subject_erased', 'assessment_in_progress'),
        },
      },
    },
    async (request, reply) => {
      await requireSubject(request.env.readModels, request.params.id);
      const now = clock();
      const { assessment, client_secret, replayedAt } = await startAssessment(
        request.env,
        request.params.id,
        { language: request.body?.language ?? 'en', resultVisible: request.body?.result_visible_to_subject ?? false },
        eventMetadata(request),
        now,
      );
      return reply.code(201).send({ ...fromState(assessment, request.env.livemode, replayedAt ?? now), client_secret });
    },
  );

  routes.get(
    '/v1/nature/subjects/:id/assessments',
    {
      schema: {
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
      },
    },
    async (request) => {
      await requireSubject(request.env.readModels, request.params.id);
      const now = clock();
      const list = await listPage(request.env.readModels, 'assessments', request.query, { subject_id: request.params.id }, (doc) => doc);
      return {
        ...list,
        data: await Promise.all(list.data.map((doc) => fromDocument(doc, request.env.dataKeys, request.env.livemode, now))),
      };
    },
  );

  routes.get(
    '/v1/nature/subjects/:id/assessments/:assessment_id',
    {
      config: withClientSecret,
      schema: {
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
      },
    },
    async (request) => {
      await requireSubject(request.env.readModels, request.params.id);
      const doc = await request.env.readModels.get('assessments', request.params.assessment_id);
      if (!doc || doc.subject_id !== request.params.id)
        throw new ProblemError('not_found', `No assessment ${request.params.assessment_id} for subject ${request.params.id}.`);
      return fromDocument(doc, request.env.dataKeys, request.env.livemode, clock());
    },
  );

  routes.patch(
    '/v1/nature/subjects/:id/assessments/:assessment_id',
    {
      config: withClientSecret,
      schema: {
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
      },
    },
    async (request) => {
      const { id, assessment_id } = request.params;
      await requireSubject(request.env.readModels, id);
      const now = clock();
      const { assessment, replayedAt } = await submitResponses(
        request.env,
        id,
        assessment_id,
        request.body.responses,
        eventMetadata(request),
        now,
      );
      return fromState(assessment, request.env.livemode, replayedAt ?? now);
    },
  );

  routes.delete(
    '/v1/nature/subjects/:id/assessments/:assessment_id',
    {
      schema: {
        tags: ['assessments'],
        operationId: 'abandonAssessment',
        summary: 'Abandon an open assessment',
        description: 'Answers 200 with the abandoned assessment; one no longer open answers 409 assessment_not_open.',
        params: assessmentParams,
        response: {
          200: success('The assessment, abandoned.', assessmentResource),
          ...problems('not_found', 'subject_erased', 'assessment_not_open'),
        },
      },
    },
    async (request) => {
      await requireSubject(request.env.readModels, request.params.id);
      const now = clock();
      const assessment = await abandonAssessment(request.env, request.params.id, request.params.assessment_id, eventMetadata(request), now);
      return fromState(assessment, request.env.livemode, now);
    },
  );
}
