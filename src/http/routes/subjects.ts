import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { subjectHistory } from '../../commands/audit.js';
import { createSubject, eraseSubject } from '../../commands/subjects.js';
import { auditTypes } from '../../domain/audit.js';
import { subjectErasedError } from '../../domain/errors.js';
import { externalIdRef, type SubjectPii } from '../../domain/subject.js';
import type { SubjectDocument } from '../../ports/collections.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { eventMetadata } from '../event-metadata.js';
import { listOf, listPage, listQuery, pageOf } from '../lists.js';
import { metadataInput, metadataOutput } from '../metadata.js';
import { openSealed } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import { exampleIds, id, instantInput, line, problems, success, text, timestamp } from '../schemas.js';

const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

const UI_HASH = 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const exampleMetadata = { cohort: '2026-spring', role: 'analyst' };

/** Consent as given, its grant no later than a little after now on the app's clock. */
const consentInput = (clock: () => Date) =>
  z.strictObject({
    text_version: line(1, 64)
      .describe('Version label of the consent text shown to the person.')
      .meta({ examples: ['consent-v3'] }),
    granted_at: instantInput
      .refine((value) => Date.parse(value) <= clock().getTime() + FUTURE_TOLERANCE_MS, 'must not be more than 5 minutes in the future.')
      .describe('When consent was granted: a UTC timestamp such as 2026-01-31T09:30:00Z, kept to the millisecond.')
      .meta({ examples: ['2026-11-01T09:30:00Z'] }),
    ui_hash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" followed by 64 lowercase hex digits.')
      .describe('Hash of the consent interface: sha256: and 64 lowercase hex digits.')
      .meta({ examples: [UI_HASH] }),
  });

/** Made per app, for its clock; every app's has the same JSON schema, so the one OpenAPI component serves them all. */
const createSubjectBody = (clock: () => Date) =>
  z
    .strictObject({
      external_subject_id: line(1, 255)
        .describe('Your own identifier for the person; unique per environment.')
        .meta({ examples: ['emp-0042'] }),
      metadata: metadataInput.optional().meta({ examples: [exampleMetadata] }),
      consent: consentInput(clock),
    })
    .meta({ id: 'CreateSubjectRequest' });

const consentOutput = z.object({
  text_version: z.string().meta({ examples: ['consent-v3'] }),
  granted_at: timestamp.meta({ examples: ['2026-11-01T09:30:00.000Z'] }),
  ui_hash: z.string().meta({ pattern: '^sha256:[0-9a-f]{64}$', examples: [UI_HASH] }),
});

const subjectId = id('sub', exampleIds.subject);

const subjectResource = z
  .object({
    id: subjectId,
    object: z.literal('subject'),
    external_subject_id: z.string().meta({ examples: ['emp-0042'] }),
    metadata: metadataOutput.meta({ examples: [exampleMetadata] }),
    consent: consentOutput,
    status: z.enum(['active']),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Subject' });

type SubjectResource = z.infer<typeof subjectResource>;

const subjectIdParams = z.strictObject({ id: id('sub', exampleIds.subject, 'The subject id.') });

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

const auditEntry = z
  .object({
    id: z
      .string()
      .describe("The log event's id; <assessment id>:expired for an expiry.")
      .meta({ examples: ['evt_01JD4Z9T3A5C7E9G1J3M5P7R9T'] }),
    object: z.literal('audit_entry'),
    type: z.enum(auditTypes),
    occurred_at: timestamp,
    assessment_id: id('asm', exampleIds.assessment).nullable(),
    key_id: id('key', exampleIds.key, 'The API key that made the request; null for what the service did itself.').nullable(),
    request_id: id('req', exampleIds.request).nullable(),
    personal_data: z
      .enum(['present', 'erased', 'none'])
      .describe('erased: the values were personal and the erasure made them unreadable (null).'),
    data: z.record(z.string(), z.unknown()).meta({ examples: [{ assessment_id: exampleIds.assessment, requested_language: 'en' }] }),
  })
  .meta({ id: 'AuditEntry' });

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

export function registerSubjectRoutes(app: FastifyInstance, clock: () => Date): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/v1/nature/subjects',
    {
      schema: {
        tags: ['subjects'],
        operationId: 'createSubject',
        summary: 'Create a subject',
        description:
          'Records the person and their consent. A second subject with the same external_subject_id answers 409 subject_exists with the existing id.',
        body: createSubjectBody(clock),
        response: {
          201: success('The subject, as stored.', subjectResource),
          ...problems('subject_exists', 'subject_erased'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const created = await createSubject(
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
    },
  );

  routes.get(
    '/v1/nature/subjects/:id',
    {
      schema: {
        tags: ['subjects'],
        operationId: 'getSubject',
        summary: 'Retrieve a subject',
        description: 'An erased subject answers 410 subject_erased.',
        params: subjectIdParams,
        response: {
          200: success('The subject.', subjectResource),
          ...problems('not_found', 'subject_erased'),
        },
      },
    },
    async (request) =>
      toSubjectResource(await requireSubject(request.env.readModels, request.params.id), request.env.dataKeys, request.env.livemode),
  );

  routes.delete(
    '/v1/nature/subjects/:id',
    {
      schema: {
        tags: ['subjects'],
        operationId: 'eraseSubject',
        summary: 'Erase a subject',
        description:
          "Destroys the subject's data key, so its external id, metadata, responses and profiles become unreadable for good, and releases " +
          'its external_subject_id for reuse. The consent record and the fact and time of erasure stay, for audit. Afterwards every route ' +
          'under the subject answers 410 subject_erased, except its audit.',
        params: subjectIdParams,
        response: {
          200: success(
            'The subject, erased.',
            z.object({ id: subjectId, object: z.literal('subject'), deleted: z.literal(true) }).meta({ id: 'DeletedSubject' }),
          ),
          ...problems('not_found', 'subject_erased'),
        },
      },
    },
    async (request) => {
      await eraseSubject(request.env, request.params.id, eventMetadata(request), clock());
      return { id: request.params.id, object: 'subject' as const, deleted: true as const };
    },
  );

  routes.get(
    '/v1/nature/subjects/:id/audit',
    {
      schema: {
        tags: ['subjects'],
        operationId: 'listAuditEntries',
        summary: "A subject's audit trail",
        description:
          'Oldest first, straight from the event log: consent, assessments started, abandoned and expired, every response batch (items, ' +
          'values, time, key id, request id), scoring and rebuilds, erasure. After an erasure the entries stay, with personal values null.',
        params: subjectIdParams,
        querystring: z.strictObject({
          ...listQuery,
          starting_after: listQuery.starting_after.describe('An entry id from a previous page: the page after it (later entries).'),
          ending_before: listQuery.ending_before.describe('An entry id from a previous page: the page before it (earlier entries).'),
        }),
        response: {
          200: success("A page of the subject's history, oldest first.", listOf(auditEntry)),
          ...problems('invalid_cursor', 'not_found'),
        },
      },
    },
    async (request) => {
      const entries = await subjectHistory(request.env.auditLog, request.params.id, clock());
      return { object: 'list' as const, ...pageOf(entries, request.query) };
    },
  );

  routes.get(
    '/v1/nature/subjects',
    {
      schema: {
        tags: ['subjects'],
        operationId: 'listSubjects',
        summary: 'List subjects',
        description: 'Newest first. Filter by external_subject_id to find the subject of one of your records.',
        querystring: z.strictObject({
          ...listQuery,
          external_subject_id: text(1, 255).optional().describe('Only the subject with this id of yours.'),
        }),
        response: {
          200: success('A page of subjects, newest first.', listOf(subjectResource)),
          ...problems('invalid_cursor'),
        },
      },
    },
    async (request) => {
      const { external_subject_id, ...page } = request.query;
      const { readModels, dataKeys, livemode } = request.env;
      // By the keyed hash that names the external id's reservation: the id itself is in no read model.
      const external_ref =
        external_subject_id === undefined ? undefined : externalIdRef(external_subject_id, await dataKeys.environmentSecret());
      const where: Record<string, string> = { status: 'active', ...(external_ref !== undefined && { external_ref }) };
      const list = await listPage(readModels, 'subjects', page, where, (doc) => doc);
      // A subject erased through another replica, whose erasure these read models do not show yet, is left out.
      const shown = await Promise.all(
        list.data.filter(isActive).map((doc) => toSubjectResource(doc, dataKeys, livemode).catch(unlessErased)),
      );
      return { ...list, data: shown.filter((subject) => subject !== undefined) };
    },
  );
}
