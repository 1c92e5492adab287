import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createSubject } from '../../commands/subjects.js';
import { listOf, listPage, listQuery } from '../lists.js';
import { metadataInput, metadataOutput } from '../metadata.js';
import { ProblemError } from '../problem.js';
import { problems, timestamp } from '../schemas.js';
import type { Document, ReadModelStore } from '../../ports/read-models.js';

const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

const consentInput = z.strictObject({
  text_version: z.string().min(1).max(64).describe('Version label of the consent text shown to the person.'),
  granted_at: z.iso
    .datetime({ message: 'Must be an ISO 8601 UTC timestamp such as 2026-01-31T09:30:00Z.' })
    .refine((value) => Date.parse(value) <= Date.now() + FUTURE_TOLERANCE_MS, 'Must not be more than 5 minutes in the future.')
    .describe('When consent was granted, ISO 8601 UTC.'),
  ui_hash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, 'Must be "sha256:" followed by 64 lowercase hex digits.')
    .describe('Hash of the consent interface: sha256: and 64 lowercase hex digits.'),
});

const createSubjectBody = z.strictObject({
  external_subject_id: z.string().min(1).max(255).describe("Your own identifier for the person; unique per environment."),
  metadata: metadataInput.optional(),
  consent: consentInput,
});

const consentOutput = z.object({ text_version: z.string(), granted_at: z.string(), ui_hash: z.string() });

const subjectResource = z
  .object({
    id: z.string().describe('sub_…'),
    object: z.literal('subject'),
    external_subject_id: z.string(),
    metadata: metadataOutput,
    consent: consentOutput,
    status: z.enum(['active']),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Subject' });

type SubjectResource = z.infer<typeof subjectResource>;

const subjectIdParams = z.strictObject({ id: z.string().describe('The subject id, sub_…') });

/** The subject as the API may show it: active (consent recorded), in the key's environment. */
export async function findSubject(readModels: ReadModelStore, id: string): Promise<Document | undefined> {
  const doc = await readModels.get('subjects', id);
  return doc?.status === 'active' ? doc : undefined;
}

function toSubjectResource(doc: Record<string, unknown>, livemode: boolean): SubjectResource {
  return {
    id: doc.id as string,
    object: 'subject',
    external_subject_id: doc.external_subject_id as string,
    metadata: doc.metadata as Record<string, string>,
    consent: doc.consent as SubjectResource['consent'],
    status: doc.status as 'active',
    livemode,
    created_at: doc.created_at as string,
  };
}

export function registerSubjectRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/v1/nature/subjects',
    {
      schema: {
        tags: ['subjects'],
        summary: 'Create a subject',
        description: 'Records the person and their consent. A second subject with the same external_subject_id answers 409 subject_exists with the existing id.',
        body: createSubjectBody,
        response: { 201: subjectResource, ...problems(400, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const created = await createSubject(
        request.env,
        { external_subject_id: body.external_subject_id, metadata: body.metadata ?? {}, consent: body.consent },
        { request_id: request.id, key_id: request.apiKey.id },
      );
      return reply.code(201).send({
        id: created.id,
        object: 'subject',
        external_subject_id: created.pii.external_subject_id,
        metadata: created.pii.metadata,
        consent: created.consent!,
        status: 'active',
        livemode: request.env.livemode,
        created_at: created.created_at,
      });
    },
  );

  routes.get(
    '/v1/nature/subjects/:id',
    {
      schema: { tags: ['subjects'], summary: 'Retrieve a subject', params: subjectIdParams, response: { 200: subjectResource, ...problems(404) } },
    },
    async (request) => {
      const doc = await findSubject(request.env.readModels, request.params.id);
      if (!doc) throw new ProblemError('not_found', `No subject ${request.params.id}.`);
      return toSubjectResource(doc, request.env.livemode);
    },
  );

  routes.get(
    '/v1/nature/subjects',
    {
      schema: {
        tags: ['subjects'],
        summary: 'List subjects',
        description: 'Newest first. Filter by external_subject_id to find the subject of one of your records.',
        querystring: z.strictObject({ ...listQuery, external_subject_id: z.string().min(1).max(255).optional() }),
        response: { 200: listOf(subjectResource), ...problems(400, 422) },
      },
    },
    async (request) => {
      const { external_subject_id, ...page } = request.query;
      const where: Record<string, string> = { status: 'active', ...(external_subject_id !== undefined && { external_subject_id }) };
      return listPage(request.env.readModels, 'subjects', page, where, (doc) => toSubjectResource(doc, request.env.livemode));
    },
  );
}
