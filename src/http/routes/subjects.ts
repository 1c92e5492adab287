import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { subjectHistory } from '../../commands/audit.js';
import * as commands from '../../commands/subjects.js';
import { subjectErasedError } from '../../domain/errors.js';
import { externalIdRef, type SubjectPii } from '../../domain/subject.js';
import type { SubjectDocument } from '../../ports/collections.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { situationalIdsOf } from '../../projections/situational-assessments.js';
import { eventMetadata } from '../event-metadata.js';
import { listPage, pageOf } from '../lists.js';
import { openSealed } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import type { Clock, RouteReply, RouteRequest } from '../route-handler.js';
import {
  createSubjectSchema,
  eraseSubjectSchema,
  getSubjectSchema,
  listAuditEntriesSchema,
  listSubjectsSchema,
  type SubjectResource,
} from './subjects-schemas.js';

export function registerSubjectRoutes(app: FastifyInstance, clock: Clock): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const createSchema = createSubjectSchema(clock);
  routes.post('/v1/nature/subjects', { schema: createSchema }, (request, reply) => createSubject(request, reply, clock));
  routes.get('/v1/nature/subjects/:id', { schema: getSubjectSchema }, getSubject);
  routes.delete('/v1/nature/subjects/:id', { schema: eraseSubjectSchema }, (request) => eraseSubject(request, clock));
  routes.get('/v1/nature/subjects/:id/audit', { schema: listAuditEntriesSchema }, (request) => listAuditEntries(request, clock));
  routes.get('/v1/nature/subjects', { schema: listSubjectsSchema }, listSubjects);
}

/** A subject the API shows: its consent is recorded. */
type ActiveSubject = Extract<SubjectDocument, { status: 'active' }>;

const isActive = (doc: SubjectDocument): doc is ActiveSubject => doc.status === 'active';

/**
 * The subject as the API may show it: active (consent recorded), in the key's environment. An erased
 * subject answers 410 on every route under it; one that does not exist (or is not yet active), 404.
 */
export async function requireSubject(readModels: ReadModelStore, id: string): Promise<ActiveSubject> {
  const doc = await readModels.get('subjects', id);
  if (doc?.status === 'erased') throw subjectErasedError(id, doc.erased_at);
  if (doc?.status !== 'active') throw new ProblemError('not_found', `No subject ${id}.`);
  return doc;
}

function unlessErased(error: unknown): undefined {
  if (error instanceof ProblemError && error.code === 'subject_erased') return undefined;
  throw error;
}

/** The subject as the API shows it, its external id and metadata opened from the document's sealed part. */
async function toSubjectResource(doc: ActiveSubject, dataKeys: DataKeyStore, livemode: boolean): Promise<SubjectResource> {
  const [pii] = await openSealed<SubjectPii>(dataKeys, doc.id, [doc.pii]);
  return {
    id: doc.id,
    object: 'subject',
    external_subject_id: pii!.external_subject_id,
    metadata: pii!.metadata,
    consent: doc.consent,
    status: doc.status,
    livemode,
    created_at: doc.created_at,
  };
}

async function createSubject(
  request: RouteRequest<ReturnType<typeof createSubjectSchema>>,
  reply: RouteReply<ReturnType<typeof createSubjectSchema>>,
  clock: Clock,
) {
  const body = request.body;
  const created = await commands.createSubject(
    request.env,
    { external_subject_id: body.external_subject_id, metadata: body.metadata ?? {}, consent: body.consent },
    eventMetadata(request),
    clock(),
  );
  return reply.code(201).send({
    id: created.id,
    object: 'subject',
    external_subject_id: body.external_subject_id,
    metadata: body.metadata ?? {},
    consent: created.consent!,
    status: 'active',
    livemode: request.env.livemode,
    created_at: created.created_at,
  });
}

async function getSubject(request: RouteRequest<typeof getSubjectSchema>) {
  return toSubjectResource(await requireSubject(request.env.readModels, request.params.id), request.env.dataKeys, request.env.livemode);
}

async function eraseSubject(request: RouteRequest<typeof eraseSubjectSchema>, clock: Clock) {
  await commands.eraseSubject(request.env, request.params.id, eventMetadata(request), clock());
  return { id: request.params.id, object: 'subject' as const, deleted: true as const };
}

async function listAuditEntries(request: RouteRequest<typeof listAuditEntriesSchema>, clock: Clock) {
  const situational = await situationalIdsOf(request.env.readModels, request.params.id);
  const entries = await subjectHistory(request.env.auditLog, request.params.id, clock(), situational);
  return { object: 'list' as const, ...pageOf(entries, request.query) };
}

async function listSubjects(request: RouteRequest<typeof listSubjectsSchema>) {
  const { external_subject_id, ...page } = request.query;
  const { readModels, dataKeys, livemode } = request.env;
  // By the keyed hash that names the external id's reservation: the id itself is in no read model.
  const external_ref =
    external_subject_id === undefined ? undefined : externalIdRef(external_subject_id, await dataKeys.environmentSecret());
  const where: Record<string, string> = { status: 'active', ...(external_ref !== undefined && { external_ref }) };
  const found = await listPage(readModels, 'subjects', page, where, (doc) => doc);
  // A subject erased through another replica, whose erasure these read models do not show yet, is left out.
  const shown = await Promise.all(found.data.filter(isActive).map((doc) => toSubjectResource(doc, dataKeys, livemode).catch(unlessErased)));
  return { ...found, data: shown.filter((subject) => subject !== undefined) };
}
