import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { auditTypes } from '../../domain/audit.js';
import { listOf, listQuery } from '../lists.js';
import { metadataInput, metadataOutput } from '../metadata.js';
import { exampleIds, id, instantInput, line, problems, success, text, timestamp } from '../schemas.js';

// The subject routes' schemas: what each takes and answers, and what the OpenAPI document says of it.

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

export type SubjectResource = z.infer<typeof subjectResource>;

const subjectIdParams = z.strictObject({ id: id('sub', exampleIds.subject, 'The subject id.') });

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

/** Made per app, as its body is: consent granted in the future is judged on the app's clock. */
export const createSubjectSchema = (clock: () => Date) =>
  ({
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
  }) satisfies FastifySchema;

export const getSubjectSchema = {
  tags: ['subjects'],
  operationId: 'getSubject',
  summary: 'Retrieve a subject',
  description: 'An erased subject answers 410 subject_erased.',
  params: subjectIdParams,
  response: {
    200: success('The subject.', subjectResource),
    ...problems('not_found', 'subject_erased'),
  },
} satisfies FastifySchema;

export const eraseSubjectSchema = {
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
} satisfies FastifySchema;

export const listAuditEntriesSchema = {
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
} satisfies FastifySchema;

export const listSubjectsSchema = {
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
} satisfies FastifySchema;
