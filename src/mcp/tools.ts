import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Scope } from '../domain/api-keys.js';
import { idPattern } from '../domain/ids.js';
import { languages } from '../scoring/languages.js';
import { type CallApi, InputError, pathOf } from './api-call.js';
import { idempotencyKeyArgument, idempotencyKeyOf } from './idempotency-key.js';
import { answered, inputRefused } from './tool-results.js';

/**
 * A tool: its definition as tools/list shows it (JSON Schemas made from zod), the scope it needs to be listed, and
 * its call, one API operation.
 */
export interface NatureTool {
  name: string;
  scope: Scope;
  definition: Tool;
  call(api: ToolApi, args: Record<string, unknown>): Promise<CallToolResult>;
}

/** What a tool calls the API with: the caller's key, and that key's id (for its Idempotency-Keys). */
export interface ToolApi {
  call: CallApi;
  keyId: string;
}

interface ToolSpec<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  annotations: ToolAnnotations;
  input: Shape;
  /** The answer's main members; the API's whole body is passed on. */
  output: z.ZodRawShape;
  /** One API operation; POST and PATCH carry the call's Idempotency-Key. */
  run(call: CallApi, args: z.infer<z.ZodObject<Shape>>, idempotencyKey: string): Promise<unknown>;
  /** POST and PATCH tools take an `idempotency_key` argument. */
  keyed?: boolean;
}

/**
 * A JSON Schema of an object for tools/list: MCP wants `type: "object"` at the top, which zod writes; draft-07, as the
 * SDK's own servers write them, for clients whose validators know no later draft.
 */
const objectSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as Tool['inputSchema'];

function tool<Shape extends z.ZodRawShape>(spec: ToolSpec<Shape>): NatureTool {
  const input = z.strictObject(spec.input);
  const withKey = spec.keyed === true ? input.extend({ idempotency_key: idempotencyKeyArgument }) : input;
  return {
    name: spec.name,
    scope: spec.scope,
    definition: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: objectSchema(withKey),
      outputSchema: objectSchema(z.looseObject(spec.output)) as Tool['outputSchema'],
      annotations: { title: spec.title, ...spec.annotations },
    },
    async call({ call, keyId }, args) {
      const parsed = withKey.safeParse(args);
      if (!parsed.success) return inputRefused(spec.name, parsed.error);
      const { idempotency_key: given, ...rest } = parsed.data as z.infer<typeof input> & { idempotency_key?: string };
      // A name the agent gives is one write of this tool on this subject and assessment: "batch-1" of the next
      // assessment is another write.
      const { subject_id, assessment_id } = rest as { subject_id?: unknown; assessment_id?: unknown };
      const target = [spec.name, subject_id, assessment_id].filter((part) => typeof part === 'string').join(' ');
      return answered(() => spec.run(call, rest as z.infer<typeof input>, idempotencyKeyOf(keyId, target, given)));
    },
  };
}

/** An id of the API, by its prefix: checked before any call, so no argument reaches a path it should not. */
const idOf = (prefix: string, description: string) =>
  z.string().regex(idPattern(prefix), `must be an id starting ${prefix}_`).describe(description);
const subjectId = idOf('sub', 'The subject id (sub_…).');
const assessmentId = idOf('asm', 'The assessment id (asm_…).');
const language = z.enum(languages);
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Writes that a second identical call leaves as they are (the API's own rules, or the same values again). */
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const subjectOutput = { id: z.string(), object: z.literal('subject'), external_subject_id: z.string(), status: z.string() };
const assessmentOutput = {
  id: z.string(),
  object: z.literal('assessment'),
  subject_id: z.string(),
  status: z.string(),
  language,
  responses_received: z.number(),
  unanswered_item_ids: z.array(z.string()),
  profile_id: z.string().nullable(),
};
const profileOutput = {
  id: z.string(),
  object: z.literal('profile'),
  language,
  natures: z.record(z.string(), z.number()),
  intelligences: z.record(z.string(), z.number()),
};

const careerListOutput = {
  object: z.literal('list'),
  data: z.array(z.object({ id: z.string(), title: z.string(), occupation: z.object({ code: z.string() }).loose() }).loose()),
  has_more: z.boolean(),
  catalogue_version: z.string(),
};

const situationalOutput = {
  id: z.string(),
  object: z.literal('situational_assessment'),
  status: z.enum(['pending', 'completed', 'failed']),
  subject_id: z.string(),
  profile_id: z.string(),
  language,
};
const situationalId = idOf('sit', 'The situational assessment id (sit_…).');
/** What every situational tool tells an agent: the answer comes later, and the text is the person's. */
const SITUATIONAL_NOTES =
  'Asynchronous: a new one is pending for a few seconds; call get_situational_assessment until status is completed (situation, alignment, narrative) or failed (failure_code), both final. ' +
  'The situation text is personal data: sealed at rest, never logged, erased with the subject; keep it out of anything you store or share.';

/** Every tool, each one API operation. */
export const tools: readonly NatureTool[] = [
  tool({
    name: 'create_subject',
    keyed: true,
    title: 'Create a subject',
    description:
      'Creates a subject: the person who will be assessed, with your own id for them and the consent they gave (POST /v1/nature/subjects). ' +
      'external_subject_id is unique per environment: a second subject with the same one answers subject_exists with the existing id.',
    scope: 'nature:write',
    annotations: WRITE,
    input: {
      external_subject_id: z.string().describe('Your own identifier for the person (1..255 characters), never their name.'),
      metadata: z
        .record(z.string(), z.string())
        .optional()
        .describe('Up to 20 string pairs of your own, such as a cohort; no personal data beyond what you need.'),
      consent: z
        .strictObject({
          text_version: z.string().describe('The version label of the consent text the person was shown.'),
          granted_at: z.string().describe('When they granted it, RFC 3339 UTC (2026-01-31T09:30:00Z).'),
          ui_hash: z.string().describe('sha256: and 64 lowercase hex digits: the hash of the consent interface shown.'),
        })
        .describe('The consent the person gave, as recorded in your product.'),
    },
    output: subjectOutput,
    run: (call, body, idempotencyKey) => call({ method: 'POST', path: '/v1/nature/subjects', body, idempotencyKey }),
  }),
  tool({
    name: 'get_subject',
    title: 'Get a subject',
    description: 'Reads a subject (GET /v1/nature/subjects/{id}). An erased subject answers subject_erased.',
    scope: 'nature:read',
    annotations: READ,
    input: { subject_id: subjectId },
    output: subjectOutput,
    run: (call, { subject_id }) => call({ method: 'GET', path: pathOf`/v1/nature/subjects/${subject_id}` }),
  }),
  tool({
    name: 'start_assessment',
    keyed: true,
    title: 'Start an assessment',
    description:
      'Starts the 76-item assessment for a subject (POST /v1/nature/subjects/{id}/assessments), in English (en) or French (fr). ' +
      'One open assessment per subject: while one is open this answers assessment_in_progress with its assessment_id, which you can go on with.',
    scope: 'nature:write',
    // A second start after the first is completed starts another assessment.
    annotations: { ...WRITE, idempotentHint: false },
    input: {
      subject_id: subjectId,
      language: language.optional().describe('The language of the items, labels and narratives: en (default) or fr.'),
    },
    output: assessmentOutput,
    run: async (call, { subject_id, language }, idempotencyKey) => {
      const started = (await call({
        method: 'POST',
        path: pathOf`/v1/nature/subjects/${subject_id}/assessments`,
        body: language === undefined ? {} : { language },
        idempotencyKey,
      })) as Record<string, unknown>;
      // The client secret is for the person's browser page; an agent never needs it, and its context is no place for it.
      const { client_secret: _secret, ...assessment } = started;
      return assessment;
    },
  }),
  tool({
    name: 'get_item_bank',
    title: 'Get the item bank',
    description:
      'The 76 statements, in id order, and the five answer labels of the 1..5 scale (GET /v1/nature/items), in the language asked for. ' +
      "Use the assessment's language. Present each statement as written, one at a time.",
    scope: 'nature:read',
    annotations: READ,
    input: { language: language.optional().describe('en (default) or fr.') },
    output: {
      object: z.literal('list'),
      language,
      data: z.array(z.object({ id: z.string(), text: z.string() }).loose()),
      scale: z.object({ labels: z.array(z.object({ value: z.number(), label: z.string() })) }).loose(),
    },
    run: (call, { language }) => call({ method: 'GET', path: '/v1/nature/items', query: { language } }),
  }),
  tool({
    name: 'submit_responses',
    keyed: true,
    title: 'Submit answers',
    description:
      'Records a batch of 1..76 answers (PATCH /v1/nature/subjects/{id}/assessments/{assessment_id}), each a whole number 1..5 for an item id. ' +
      'A batch is all or nothing: a bad entry answers validation_failed naming it, and nothing is stored. ' +
      'An item answered again replaces its answer. The batch that completes the 76 scores the assessment; read the profile next.',
    scope: 'nature:write',
    annotations: WRITE,
    input: {
      subject_id: subjectId,
      assessment_id: assessmentId,
      responses: z
        .array(
          z.strictObject({
            item_id: z.string().describe('mn_001..mn_076'),
            value: z.number().int().min(1).max(5).describe('1..5, from the scale'),
            answered_at: z
              .string()
              .optional()
              .describe('When the person answered, RFC 3339 (optional; for the answer-quality indicators).'),
            response_time_ms: z
              .number()
              .int()
              .min(0)
              .max(3_600_000)
              .optional()
              .describe('How long the person took on the item, in ms, 0..3600000 (optional).'),
          }),
        )
        .describe('The answers of this batch.'),
    },
    output: assessmentOutput,
    run: (call, { subject_id, assessment_id, responses }, idempotencyKey) =>
      call({
        method: 'PATCH',
        path: pathOf`/v1/nature/subjects/${subject_id}/assessments/${assessment_id}`,
        body: { responses },
        idempotencyKey,
      }),
  }),
  tool({
    name: 'get_assessment',
    title: 'Get an assessment',
    description:
      'Reads an assessment (GET /v1/nature/subjects/{id}/assessments/{assessment_id}): its status, language, how many items are answered and which are not yet, and its profile_id once completed.',
    scope: 'nature:read',
    annotations: READ,
    input: { subject_id: subjectId, assessment_id: assessmentId },
    output: assessmentOutput,
    run: (call, { subject_id, assessment_id }) =>
      call({ method: 'GET', path: pathOf`/v1/nature/subjects/${subject_id}/assessments/${assessment_id}` }),
  }),
  tool({
    name: 'get_profile',
    title: 'Get a profile',
    description:
      "Reads a profile: by profile_id (GET /v1/nature/profiles/{id}), or a subject's latest (GET /v1/nature/subjects/{id}/profile). " +
      '9 Nature and 10 Intelligence scores from 0 to 1, in alphabetical order, with short narratives. The service never ranks them: do not either.',
    scope: 'nature:read',
    annotations: READ,
    input: {
      profile_id: idOf('prf', 'The profile id (prf_…).').optional(),
      subject_id: subjectId.optional().describe("A subject id (sub_…), for the subject's latest profile."),
    },
    output: profileOutput,
    run: (call, { profile_id, subject_id }) => {
      if (profile_id !== undefined) return call({ method: 'GET', path: pathOf`/v1/nature/profiles/${profile_id}` });
      if (subject_id !== undefined) return call({ method: 'GET', path: pathOf`/v1/nature/subjects/${subject_id}/profile` });
      return Promise.reject(new InputError('Give profile_id, or subject_id for the latest profile.'));
    },
  }),
  tool({
    name: 'list_events',
    title: 'List events',
    description:
      'The events of this environment, newest first (GET /v1/nature/events): nature.assessment.completed, nature.profile.updated and others, each with the ids it concerns. ' +
      'One page per call; pass the last id as starting_after for the next.',
    scope: 'nature:read',
    annotations: READ,
    input: {
      limit: z.number().int().min(1).max(100).optional().describe('1..100 (default 10).'),
      starting_after: idOf('evt', 'The id of the last event of the page before.').optional(),
    },
    output: { object: z.literal('list'), data: z.array(z.object({ id: z.string(), type: z.string() }).loose()), has_more: z.boolean() },
    run: (call, { limit, starting_after }) => call({ method: 'GET', path: '/v1/nature/events', query: { limit, starting_after } }),
  }),
  tool({
    name: 'search_careers',
    title: 'Search careers',
    description:
      'Searches the O*NET careers, every title of every occupation (GET /v1/careers): by words of a title (accents, case and one typo forgiven), ' +
      'job zones and occupation code. One page per call; pass the last id as starting_after for the next. ' +
      'Includes information from the O*NET Database by USDOL/ETA, used under CC BY 4.0.',
    scope: 'careers:read',
    annotations: READ,
    input: {
      query: z.string().optional().describe('Words of a title, such as "nurse".'),
      job_zone: z.array(z.number().int().min(1).max(5)).optional().describe('Job zones 1..5 (preparation needed, little to extensive).'),
      occupation_code: z.string().optional().describe('One occupation, as an O*NET-SOC code such as 29-1141.00.'),
      limit: z.number().int().min(1).max(100).optional().describe('1..100 (default 10).'),
      starting_after: z.string().optional().describe('The id of the last career of the page before.'),
    },
    output: careerListOutput,
    run: (call, { job_zone, ...query }) => call({ method: 'GET', path: '/v1/careers', query: { ...query, job_zone: job_zone?.join(',') } }),
  }),
  tool({
    name: 'match_careers',
    title: 'Match careers to a profile',
    description:
      'The O*NET occupations that best fit a profile (POST /v1/careers/matches), by profile_id (needs nature:read too) or by the 19 scores given inline: ' +
      "ordered by fit, each with up to 5 titles and, per construct, how the person's score and the occupation's demand count. " +
      'Present them as possibilities to explore, not as a verdict. Includes information from the O*NET Database by USDOL/ETA, used under CC BY 4.0.',
    scope: 'careers:read',
    annotations: READ,
    input: {
      profile_id: idOf('prf', 'The profile id (prf_…).').optional(),
      profile: z
        .strictObject({ natures: z.record(z.string(), z.number()), intelligences: z.record(z.string(), z.number()) })
        .optional()
        .describe('Or the scores themselves: all 9 natures and 10 intelligences, 0..1.'),
      job_zone: z.array(z.number().int().min(1).max(5)).optional().describe('Only occupations in these job zones 1..5.'),
      limit: z.number().int().min(1).max(100).optional().describe('1..100 (default 20).'),
    },
    output: {
      object: z.literal('list'),
      data: z.array(z.object({ occupation: z.object({ code: z.string(), title: z.string() }).loose(), fit: z.number() }).loose()),
      catalogue_version: z.string(),
      profile_id: z.string().nullable(),
    },
    // Reads only: the API stores nothing for a match, so no Idempotency-Key.
    run: (call, body) => call({ method: 'POST', path: '/v1/careers/matches', body }),
  }),
  tool({
    name: 'create_situational_assessment',
    keyed: true,
    title: 'Assess a situation',
    description:
      "Asks how a subject's latest completed profile meets a situation told in free text (POST /v1/situational/assessments): " +
      'a task, a role, a moment at work or at home, 20..4000 characters, in English or French. ' +
      'A subject without a completed assessment answers profile_required: finish the assessment first. ' +
      SITUATIONAL_NOTES +
      ' The narrative never ranks the person: do not either.',
    scope: 'situational:write',
    // Each call reads the situation anew: a second one is a second assessment.
    annotations: { ...WRITE, idempotentHint: false },
    input: {
      subject_id: subjectId,
      situation_context: z
        .string()
        .describe('The situation, 20..4000 characters, in the words the person used: personal data, sealed and never logged.'),
      language: language.optional().describe("en or fr: the language of the narrative (default: the subject's latest assessment's)."),
    },
    output: situationalOutput,
    run: (call, body, idempotencyKey) => call({ method: 'POST', path: '/v1/situational/assessments', body, idempotencyKey }),
  }),
  tool({
    name: 'get_situational_assessment',
    title: 'Get a situational assessment',
    description:
      'Reads a situational assessment (GET /v1/situational/assessments/{id}): pending; completed with situation (what it draws on, 0..1 per construct), ' +
      'alignment (overall and per construct, 0..1) and a narrative; or failed with failure_code (situation_unclear: too little of the text could be read). ' +
      SITUATIONAL_NOTES,
    scope: 'situational:read',
    annotations: READ,
    input: { situational_assessment_id: situationalId },
    output: situationalOutput,
    run: (call, { situational_assessment_id }) =>
      call({ method: 'GET', path: pathOf`/v1/situational/assessments/${situational_assessment_id}` }),
  }),
  tool({
    name: 'list_situational_assessments',
    title: 'List situational assessments',
    description:
      'The situational assessments of this environment, or of one subject with subject_id, newest first (GET /v1/situational/assessments); those of erased subjects are left out. ' +
      'One page per call; pass the last id as starting_after for the next. ' +
      SITUATIONAL_NOTES,
    scope: 'situational:read',
    annotations: READ,
    input: {
      subject_id: subjectId.optional().describe("A subject id (sub_…), for that subject's only."),
      limit: z.number().int().min(1).max(100).optional().describe('1..100 (default 10).'),
      starting_after: idOf('sit', 'The id of the last situational assessment of the page before.').optional(),
    },
    output: {
      object: z.literal('list'),
      data: z.array(z.object({ id: z.string(), status: z.string(), subject_id: z.string() }).loose()),
      has_more: z.boolean(),
    },
    run: (call, query) => call({ method: 'GET', path: '/v1/situational/assessments', query }),
  }),
  tool({
    name: 'erase_subject',
    title: 'Erase a subject',
    description:
      "Erases a subject's personal data for good (DELETE /v1/nature/subjects/{id}; GDPR Art. 17): their answers and profiles become unreadable and cannot be brought back. " +
      'Only when the person asks for it. A second erasure answers subject_erased.',
    scope: 'nature:write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    input: { subject_id: subjectId },
    output: { id: z.string(), object: z.literal('subject'), deleted: z.literal(true) },
    run: (call, { subject_id }) => call({ method: 'DELETE', path: pathOf`/v1/nature/subjects/${subject_id}` }),
  }),
];
