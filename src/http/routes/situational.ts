import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requestSituationalAssessment } from '../../commands/situational.js';
import type { SituationalResult } from '../../domain/situational-assessment.js';
import type { Collections } from '../../ports/collections.js';
import type { EnvironmentServices } from '../../wiring/environments.js';
import { eventMetadata } from '../event-metadata.js';
import { listPage } from '../lists.js';
import { openSealed, subjectGone } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import type { Clock, RouteReply, RouteRequest } from '../route-handler.js';
import { latestProfile } from './profiles.js';
import { createSituationalSchema, getSituationalSchema, listSituationalSchema, type SituationalResource } from './situational-schemas.js';
import { requireSubject } from './subjects.js';

export function registerSituationalRoutes(app: FastifyInstance, clock: Clock): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/v1/situational/assessments',
    { schema: createSituationalSchema, config: { scope: 'situational:write' } },
    (request, reply) => createSituational(request, reply, clock),
  );
  routes.get('/v1/situational/assessments', { schema: listSituationalSchema, config: { scope: 'situational:read' } }, listSituational);
  routes.get('/v1/situational/assessments/:id', { schema: getSituationalSchema, config: { scope: 'situational:read' } }, (request) =>
    getSituational(request.env, request.params.id),
  );
}

type Stored = Collections['situational_assessments'];

/** The resource of a stored assessment, its result opened; 410 once its subject is erased. */
async function toResource(doc: Stored, { dataKeys, livemode }: EnvironmentServices): Promise<SituationalResource> {
  if ('erased' in doc) throw subjectGone(doc.subject_id);
  const { id, status, subject_id, profile_id, language, created_at } = doc;
  const resource: SituationalResource = {
    id,
    object: 'situational_assessment',
    status,
    subject_id,
    profile_id,
    language,
    livemode,
    created_at,
  };
  if (doc.pii !== undefined) {
    const [opened] = await openSealed<{ result: SituationalResult }>(dataKeys, subject_id, [doc.pii]);
    Object.assign(resource, opened!.result);
  }
  if (doc.failure_code !== undefined) resource.failure_code = doc.failure_code;
  if (doc.method_version !== undefined) resource.method_version = doc.method_version;
  if (doc.completed_at !== undefined) resource.completed_at = doc.completed_at;
  return resource;
}

async function createSituational(
  request: RouteRequest<typeof createSituationalSchema>,
  reply: RouteReply<typeof createSituationalSchema>,
  clock: Clock,
) {
  const { subject_id, situation_context, language } = request.body;
  const { readModels } = request.env;
  await requireSubject(readModels, subject_id);
  const profile = await latestProfile(readModels, subject_id);
  if (profile === undefined || 'erased' in profile) {
    throw new ProblemError(
      'profile_required',
      `The subject ${subject_id} has no completed assessment yet; a situational assessment needs its profile.`,
    );
  }
  const now = clock();
  const assessment = await requestSituationalAssessment(
    request.env,
    {
      subjectId: subject_id,
      profileId: profile.id,
      assessmentId: profile.assessment_id,
      language: language ?? profile.language,
      text: situation_context,
    },
    eventMetadata(request),
    now,
  );
  const doc = await readModels.get('situational_assessments', assessment.id);
  const { id, status, profile_id, created_at } = assessment;
  const resource: SituationalResource = doc
    ? await toResource(doc, request.env)
    : {
        id,
        object: 'situational_assessment',
        status,
        subject_id,
        profile_id,
        language: assessment.language,
        livemode: request.env.livemode,
        created_at,
      };
  return reply.code(202).send(resource);
}

async function getSituational(env: EnvironmentServices, id: string) {
  const doc = await env.readModels.get('situational_assessments', id);
  if (!doc) throw new ProblemError('not_found', `No situational assessment ${id}.`);
  return toResource(doc, env);
}

async function listSituational(request: RouteRequest<typeof listSituationalSchema>) {
  const { subject_id, ...params } = request.query;
  const { readModels } = request.env;
  if (subject_id !== undefined) await requireSubject(readModels, subject_id);
  const page = await listPage(readModels, 'situational_assessments', params, subject_id === undefined ? {} : { subject_id }, (doc) => doc);
  const data = await Promise.all(page.data.map((doc) => toResource(doc, request.env).catch(unlessErased)));
  return { ...page, data: data.filter((resource) => resource !== undefined) };
}

/** A list leaves out what an erasure took (or is taking) rather than fail. */
function unlessErased(error: unknown): undefined {
  if (error instanceof ProblemError && error.code === 'subject_erased') return undefined;
  throw error;
}
