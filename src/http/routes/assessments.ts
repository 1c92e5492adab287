import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as commands from '../../commands/assessments.js';
import { type Assessment, type ItemResponse, statusAt } from '../../domain/assessment.js';
import { allAnswered, type Collections, type StoredAssessment } from '../../ports/collections.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import { ITEM_COUNT, itemIds, items } from '../../scoring/item-bank.js';
import { eventMetadata } from '../event-metadata.js';
import { listPage } from '../lists.js';
import { openSealed, subjectGone } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import type { Clock, RouteReply, RouteRequest } from '../route-handler.js';
import {
  type AssessmentResource,
  abandonAssessmentSchema,
  getAssessmentSchema,
  listAssessmentsSchema,
  startAssessmentSchema,
  submitResponsesSchema,
  withClientSecret,
} from './assessments-schemas.js';
import { requireSubject } from './subjects.js';

export function registerAssessmentRoutes(app: FastifyInstance, clock: Clock): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post('/v1/nature/subjects/:id/assessments', { schema: startAssessmentSchema }, (request, reply) =>
    startAssessment(request, reply, clock),
  );
  routes.get('/v1/nature/subjects/:id/assessments', { schema: listAssessmentsSchema }, (request) => listAssessments(request, clock));
  routes.get('/v1/nature/subjects/:id/assessments/:assessment_id', { config: withClientSecret, schema: getAssessmentSchema }, (request) =>
    getAssessment(request, clock),
  );
  routes.patch(
    '/v1/nature/subjects/:id/assessments/:assessment_id',
    { config: withClientSecret, schema: submitResponsesSchema },
    (request) => submitResponses(request, clock),
  );
  routes.delete('/v1/nature/subjects/:id/assessments/:assessment_id', { schema: abandonAssessmentSchema }, (request) =>
    abandonAssessment(request, clock),
  );
}

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

async function startAssessment(
  request: RouteRequest<typeof startAssessmentSchema>,
  reply: RouteReply<typeof startAssessmentSchema>,
  clock: Clock,
) {
  await requireSubject(request.env.readModels, request.params.id);
  const now = clock();
  const { assessment, client_secret, replayedAt } = await commands.startAssessment(
    request.env,
    request.params.id,
    { language: request.body?.language ?? 'en', resultVisible: request.body?.result_visible_to_subject ?? false },
    eventMetadata(request),
    now,
  );
  return reply.code(201).send({ ...fromState(assessment, request.env.livemode, replayedAt ?? now), client_secret });
}

async function listAssessments(request: RouteRequest<typeof listAssessmentsSchema>, clock: Clock) {
  await requireSubject(request.env.readModels, request.params.id);
  const now = clock();
  const page = await listPage(request.env.readModels, 'assessments', request.query, { subject_id: request.params.id }, (doc) => doc);
  return {
    ...page,
    data: await Promise.all(page.data.map((doc) => fromDocument(doc, request.env.dataKeys, request.env.livemode, now))),
  };
}

async function getAssessment(request: RouteRequest<typeof getAssessmentSchema>, clock: Clock) {
  await requireSubject(request.env.readModels, request.params.id);
  const doc = await request.env.readModels.get('assessments', request.params.assessment_id);
  if (!doc || doc.subject_id !== request.params.id)
    throw new ProblemError('not_found', `No assessment ${request.params.assessment_id} for subject ${request.params.id}.`);
  return fromDocument(doc, request.env.dataKeys, request.env.livemode, clock());
}

async function submitResponses(request: RouteRequest<typeof submitResponsesSchema>, clock: Clock) {
  const { id, assessment_id } = request.params;
  await requireSubject(request.env.readModels, id);
  const now = clock();
  const { assessment, replayedAt } = await commands.submitResponses(
    request.env,
    id,
    assessment_id,
    request.body.responses,
    eventMetadata(request),
    now,
  );
  return fromState(assessment, request.env.livemode, replayedAt ?? now);
}

async function abandonAssessment(request: RouteRequest<typeof abandonAssessmentSchema>, clock: Clock) {
  await requireSubject(request.env.readModels, request.params.id);
  const now = clock();
  const assessment = await commands.abandonAssessment(
    request.env,
    request.params.id,
    request.params.assessment_id,
    eventMetadata(request),
    now,
  );
  return fromState(assessment, request.env.livemode, now);
}
