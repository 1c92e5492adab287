import { scopes } from '../domain/api-keys.js';
import { accountPlanNames } from '../domain/plans.js';
import { CATALOGUE_MISSING_DETAIL, type ProblemCode, problemBody, problemCodes, problemType } from './problem.js';
import { exampleIds } from './schemas.js';

/** JSON as the document holds it. */
export type Json = Record<string, unknown>;

/** The example of a field error's message: the server's own words for a malformed consent.ui_hash. */
const UI_HASH_MESSAGE = '`consent.ui_hash` must be "sha256:" followed by 64 lowercase hex digits.';

/** The examples' origin: the server as `npm start` runs it, the default of the document's `servers`. */
const EXAMPLE_ORIGIN = 'http://127.0.0.1:8080';

/** What any route can answer, whatever it does: framing, keys, scopes, strict query, encodings, limits, faults. */
const EVERY_ROUTE: ProblemCode[] = [
  'malformed_request',
  'unauthenticated',
  'insufficient_scope',
  'method_not_allowed',
  'unsupported_media_type',
  'validation_failed',
  'rate_limited',
  'internal_error',
  'service_unavailable',
];
/** Methods whose body fastify reads: it can be broken, too large or of another type. */
const BODY_METHODS = new Set(['post', 'patch', 'delete']);
/** Methods that take an Idempotency-Key. */
export const KEYED_METHODS = new Set(['post', 'patch']);

/** Every code an operation can answer: its own (declared with `problems`) and those of its method. */
export function codesOf(method: string, declared: readonly ProblemCode[]): ProblemCode[] {
  const codes = new Set<ProblemCode>([...EVERY_ROUTE, ...declared]);
  const ofMethod: ProblemCode[] = [
    ...(BODY_METHODS.has(method) ? (['invalid_json', 'payload_too_large'] as const) : []),
    ...(KEYED_METHODS.has(method) ? (['idempotency_key_in_use', 'idempotency_key_reused'] as const) : []),
  ];
  for (const code of ofMethod) codes.add(code);
  return (Object.keys(problemCodes) as ProblemCode[]).filter((code) => codes.has(code));
}

/** The extension members a code's body carries, beside the standard ones. */
const extensions: Partial<Record<ProblemCode, { required: string[]; extra: Record<string, unknown> }>> = {
  subject_exists: { required: ['subject_id'], extra: { subject_id: exampleIds.subject } },
  subject_erased: { required: ['subject_id'], extra: { subject_id: exampleIds.subject } },
  assessment_in_progress: { required: ['assessment_id'], extra: { assessment_id: exampleIds.assessment } },
  assessment_not_open: { required: ['assessment_status'], extra: { assessment_status: 'completed' } },
  insufficient_scope: { required: [], extra: { required_scope: 'nature:write' } },
  plan_quota_exceeded: {
    required: ['plan', 'hard_cap', 'resets_at'],
    extra: { plan: 'standard', hard_cap: 10000, resets_at: '2026-12-01T00:00:00.000Z' },
  },
  validation_failed: {
    required: ['errors'],
    extra: { errors: [{ path: '/consent/ui_hash', in: 'body', message: UI_HASH_MESSAGE }] },
  },
};

/** What each code means, for the document's readers; the example body's detail is the server's own wording. */
const meanings: Record<ProblemCode, { when: string; detail: string }> = {
  invalid_json: {
    when: 'The body is empty, not UTF-8, not valid JSON, names a member twice or nests more than 32 levels deep.',
    detail: 'The request body is not valid JSON: Unexpected end of JSON input',
  },
  invalid_cursor: {
    when: 'starting_after or ending_before names no item of this list.',
    detail: `The cursor ${exampleIds.subject} names no item of this list.`,
  },
  malformed_request: {
    when: 'The request is not well-formed HTTP: no or several Host headers, or a body that ended early.',
    detail: 'An HTTP/1.1 request has exactly one Host header; this one has 0.',
  },
  unauthenticated: {
    when: "No API key, a malformed one, or an unknown, rotated or revoked key; or, with a publishable key, a Nature-Client-Secret that is not this assessment's, or one whose assessment is no longer open (`assessment_status` then says what it is).",
    detail: 'Send your API key as Authorization: Bearer <API key>.',
  },
  plan_quota_exceeded: {
    when: "Production's completed assessments this month (UTC) reached the plan's hard cap (`hard_cap`): no assessment starts until `resets_at`, the start of the next month; `Retry-After` is the seconds until then. Assessments already started still complete.",
    detail:
      "This month's 10000 completed assessments reached the plan's hard cap of 10000: no assessment starts in production until 2026-12-01T00:00:00.000Z (UTC), when the count starts again, unless the operator changes the plan.",
  },
  insufficient_scope: {
    when: 'The key lacks the scope the operation needs (`required_scope`); or a publishable key called anything but the item bank and one assessment with its client secret, or came from an origin it was not minted for.',
    detail: 'This operation needs the nature:write scope; the key has nature:read.',
  },
  sandbox_only: {
    when: 'The operation exists in the sandbox only: use a test_ key.',
    detail: 'Test events are sent in the sandbox only: use a test_ key.',
  },
  mcp_live_keys_disabled: {
    when: 'A live_ key at /v1/mcp, where the operator has not allowed live keys (NATURE_MCP_LIVE_KEYS=allow).',
    detail: 'Live keys may not be used over MCP on this server: use a test_ key, or ask the operator to set NATURE_MCP_LIVE_KEYS=allow.',
  },
  not_found: { when: 'No such resource in the environment of the key.', detail: `No subject ${exampleIds.subject}.` },
  profile_not_found: {
    when: 'No such profile, or the subject has no completed assessment yet.',
    detail: 'The subject has no completed assessment yet.',
  },
  career_not_found: { when: 'No career with this id in the catalogue now served.', detail: 'No career car_3f9a1c0b2d4e5f60.' },
  product_not_available: { when: 'The product is not available at v1.', detail: 'This product is not available at v1.' },
  method_not_allowed: {
    when: 'The path exists, but not for this method: `Allow` lists the methods it takes.',
    detail: 'PUT is not allowed here; use GET, DELETE.',
  },
  subject_exists: {
    when: 'A subject with this external_subject_id exists: `subject_id` is its id.',
    detail: 'A subject with this external_subject_id already exists.',
  },
  assessment_in_progress: {
    when: 'The subject has an open assessment (`assessment_id`): finish or abandon it first.',
    detail: 'The subject has an open assessment; finish or abandon it first.',
  },
  assessment_not_open: {
    when: 'The assessment is no longer created or in_progress: `assessment_status` says what it is.',
    detail: 'The assessment is completed; only created and in_progress assessments change.',
  },
  idempotency_key_in_use: {
    when: 'A request with this Idempotency-Key is still running: retry after `Retry-After` seconds.',
    detail: 'A request with this Idempotency-Key is still running; retry when it has finished.',
  },
  profile_required: {
    when: 'The subject has no completed assessment yet: a situation is read against its latest profile.',
    detail: `The subject ${exampleIds.subject} has no completed assessment yet; a situational assessment needs its profile.`,
  },
  subject_erased: {
    when: 'The subject (`subject_id`) was erased: its data is gone for good.',
    detail: `The subject ${exampleIds.subject} was erased at 2026-11-21T19:20:57.021Z; its personal data is gone for good.`,
  },
  request_timeout: { when: 'The request was not received in time.', detail: 'The request was not received in time.' },
  payload_too_large: { when: 'The body is larger than 64 KiB.', detail: 'The request body is larger than 64 KiB.' },
  unsupported_media_type: {
    when: 'The body is not sent as application/json, or is content-encoded.',
    detail: 'Send the body as JSON with Content-Type: application/json.',
  },
  expectation_failed: {
    when: 'An Expect header other than 100-continue.',
    detail: 'Expect "200-ok" is not supported; only 100-continue is.',
  },
  validation_failed: {
    when: 'Fields of the body, query, path or headers are invalid or unknown: `errors` lists each with a JSON Pointer.',
    detail: 'The request body has 1 invalid field(s).',
  },
  idempotency_key_reused: {
    when: 'This Idempotency-Key was used for another request (method, path or body): use a new key.',
    detail: 'This Idempotency-Key was used for a different request (method, path or body); use a new key.',
  },
  rate_limited: {
    when: 'Too many requests for this key (or, without a valid key, from this address): retry after `Retry-After` seconds.',
    detail: 'Too many requests: at most 200 per 2 s for this API key. Retry after 1 s.',
  },
  header_fields_too_large: { when: 'The request headers are larger than 16 KiB.', detail: 'The request headers are larger than 16 KiB.' },
  internal_error: {
    when: 'A fault on our side; retry later and quote the request_id if it persists.',
    detail: 'Something went wrong on our side. Retry later; quote the request_id if it persists.',
  },
  service_unavailable: {
    when: 'The server is shutting down or a backend does not answer: retry shortly.',
    detail: 'The server is shutting down; retry shortly.',
  },
  careers_catalogue_missing: {
    when: 'No careers catalogue is imported on this server yet: its operator runs `nature careers import PATH` once (waiting does not help).',
    detail: CATALOGUE_MISSING_DETAIL,
  },
};

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());

/** The shared response's name: its codes, e.g. SubjectExistsOrIdempotencyKeyInUse. */
export const responseName = (codes: readonly ProblemCode[]) => codes.map(pascal).join('Or');

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Retry-After's entry: required where every code of the status sends it; a missing catalogue waits for its operator. */
function retryAfterOf(codes: readonly ProblemCode[]): string {
  if (codes.includes('careers_catalogue_missing')) return 'RetryAfterUnlessCatalogueMissing';
  return codes.length === 1 ? 'RetryAfter' : 'RetryAfterWhenInUse';
}

/** Headers of an error response; RateLimit ones only once the request was counted (after framing checks). */
function headersOf(status: number, codes: readonly ProblemCode[]): Json {
  return {
    'request-id': header('RequestId'),
    ...(!codes.every((code) => code === 'malformed_request' || code === 'service_unavailable') && {
      'RateLimit-Policy': header('RateLimitPolicy'),
      RateLimit: header('RateLimit'),
    }),
    ...((status === 402 || status === 429 || status === 503 || codes.includes('idempotency_key_in_use')) && {
      'Retry-After': header(retryAfterOf(codes)),
    }),
    ...(status === 405 && { Allow: header('Allow') }),
  };
}

/** The body of one code: the Problem with its status, its code and the extension members it always carries. */
function problemOf(status: number, code: ProblemCode): Json {
  const required = extensions[code]?.required ?? [];
  return {
    allOf: [
      { $ref: '#/components/schemas/Problem' },
      {
        properties: {
          status: { const: status },
          code: { const: code },
          ...Object.fromEntries(required.map((name) => [name, problemProperties[name]])),
        },
        ...(required.length > 0 && { required }),
      },
    ],
  };
}

/** components.responses entry for one status and the codes it can carry there. */
export function problemResponse(status: number, codes: readonly ProblemCode[]): Json {
  const schema = codes.length === 1 ? problemOf(status, codes[0]!) : { oneOf: codes.map((code) => problemOf(status, code)) };
  const examples = Object.fromEntries(
    codes.map((code) => [
      code,
      {
        summary: problemCodes[code].title,
        value: problemBody(code, meanings[code].detail, exampleIds.request, EXAMPLE_ORIGIN, extensions[code]?.extra ?? {}),
      },
    ]),
  );
  return {
    description: codes.map((code) => `\`${code}\`: ${meanings[code].when}`).join(' '),
    headers: headersOf(status, codes),
    content: { 'application/problem+json': { schema, examples } },
  };
}

const ulid = '[0-9A-HJKMNP-TV-Z]{26}';

/** The members of a problem body: the standard ones, then the extensions of some codes. */
const problemProperties: Record<string, Json> = {
  type: {
    type: 'string',
    format: 'uri-reference',
    description:
      "The URL of the code's entry in the error catalogue, /docs/errors#<code>: absolute, under the server's public URL (NATURE_PUBLIC_URL) or else the origin the request was sent to; relative only when the request named no usable Host. Branch on `code`, not on this URL.",
    examples: [problemType('validation_failed', EXAMPLE_ORIGIN)],
  },
  title: { type: 'string', examples: ['Validation failed'] },
  status: { type: 'integer', examples: [422] },
  detail: { type: 'string', examples: ['The request body has 1 invalid field(s).'] },
  code: { type: 'string', enum: Object.keys(problemCodes), examples: ['validation_failed'] },
  request_id: {
    type: 'string',
    pattern: `^req_${ulid}$`,
    description: 'The request-id header of the answer.',
    examples: [exampleIds.request],
  },
  errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' }, description: 'validation_failed: each invalid field.' },
  subject_id: {
    type: 'string',
    pattern: `^sub_${ulid}$`,
    description: 'subject_exists: the existing subject; subject_erased: the erased one.',
  },
  assessment_id: { type: 'string', pattern: `^asm_${ulid}$`, description: 'assessment_in_progress: the open assessment.' },
  assessment_status: {
    type: 'string',
    enum: ['scoring', 'completed', 'abandoned', 'expired'],
    description:
      'assessment_not_open: the status the assessment has; unauthenticated, to the holder of a client secret whose assessment closed: the same.',
  },
  required_scope: { type: 'string', enum: [...scopes], description: 'insufficient_scope: the scope the operation needs.' },
  plan: { type: 'string', enum: [...accountPlanNames], description: "plan_quota_exceeded: the account's plan." },
  hard_cap: {
    type: 'integer',
    minimum: 0,
    description: 'plan_quota_exceeded: the completed assessments a month past which nothing starts.',
  },
  resets_at: {
    type: 'string',
    format: 'date-time',
    description: 'plan_quota_exceeded: the start of the next UTC month, when assessments start again.',
  },
};

/** components.schemas.Problem and what it refers to. */
export const problemSchemas: Json = {
  Problem: {
    type: 'object',
    description:
      'An RFC 9457 problem: `code` is stable (branch on it), `detail` is for people. Extension members appear with the codes that carry them.',
    required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
    properties: problemProperties,
    examples: [
      problemBody(
        'validation_failed',
        meanings.validation_failed.detail,
        exampleIds.request,
        EXAMPLE_ORIGIN,
        extensions.validation_failed!.extra,
      ),
    ],
  },
  FieldError: {
    type: 'object',
    required: ['path', 'in', 'message'],
    properties: {
      path: {
        type: 'string',
        description: 'JSON Pointer to the field within the part named by `in`; "" for the whole part.',
        examples: ['/consent/ui_hash'],
      },
      in: { type: 'string', enum: ['body', 'query', 'path', 'header'] },
      message: { type: 'string', description: 'What is wrong, in plain words naming the field: for people.', examples: [UI_HASH_MESSAGE] },
    },
  },
};

/** components.headers: what answers carry. */
export const headers: Json = {
  RequestId: {
    description: 'The id of this request, also in the log and in every error body: quote it to support.',
    required: true,
    schema: { type: 'string', pattern: `^req_${ulid}$` },
    example: exampleIds.request,
  },
  RateLimitPolicy: {
    description: "The key's quota (IETF RateLimit header fields draft): q requests per window of w seconds.",
    schema: { type: 'string' },
    example: '"default";q=200;w=2',
  },
  RateLimit: {
    description: 'What is left of the quota: r requests for the next t seconds.',
    schema: { type: 'string' },
    example: '"default";r=199;t=2',
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0 }, example: 1 },
  RetryAfterWhenInUse: {
    description: 'With idempotency_key_in_use: seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
    example: 1,
  },
  RetryAfterUnlessCatalogueMissing: {
    description:
      'With service_unavailable: seconds to wait before retrying. careers_catalogue_missing has none: an operator must import a catalogue.',
    schema: { type: 'integer', minimum: 0 },
    example: 1,
  },
  Allow: { description: 'The methods the path takes.', required: true, schema: { type: 'string' }, example: 'GET, DELETE' },
  ETag: {
    description: 'A strong validator of the bytes answered: send it as If-None-Match to get a 304 while they are unchanged.',
    required: true,
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{27}"$' },
    example: '"Wq3c0cMDbD0nqUQ5mG8m7B1y5rJ"',
  },
  CacheControl: {
    description: 'For the reader alone (private, never a shared cache), fresh for max-age seconds, then revalidated with If-None-Match.',
    required: true,
    schema: { type: 'string' },
    example: 'private, max-age=300',
  },
  IdempotentReplayed: {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key, replayed byte for byte.',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
};
