import { redactSecrets, redactSecretsIn } from '../support/secret-redaction.js';

/** The contract's error codes that this service answers, with their status and title. */
export const problemCodes = {
  invalid_json: { status: 400, title: 'Invalid JSON' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  malformed_request: { status: 400, title: 'Malformed request' },
  unauthenticated: { status: 401, title: 'Unauthenticated' },
  plan_quota_exceeded: { status: 402, title: 'Plan quota exceeded' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  sandbox_only: { status: 403, title: 'Sandbox only' },
  mcp_live_keys_disabled: { status: 403, title: 'Live keys disabled for MCP' },
  not_found: { status: 404, title: 'Not found' },
  profile_not_found: { status: 404, title: 'Profile not found' },
  career_not_found: { status: 404, title: 'Career not found' },
  product_not_available: { status: 404, title: 'Product not available' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  subject_exists: { status: 409, title: 'Subject exists' },
  assessment_in_progress: { status: 409, title: 'Assessment in progress' },
  assessment_not_open: { status: 409, title: 'Assessment not open' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  profile_required: { status: 409, title: 'Profile required' },
  subject_erased: { status: 410, title: 'Subject erased' },
  request_timeout: { status: 408, title: 'Request timeout' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  expectation_failed: { status: 417, title: 'Expectation failed' },
  validation_failed: { status: 422, title: 'Validation failed' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Rate limited' },
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  careers_catalogue_missing: { status: 503, title: 'Careers catalogue missing' },
} as const;

export type ProblemCode = keyof typeof problemCodes;

/** What careers_catalogue_missing says: the operator's command that installs one (a wait would not). */
export const CATALOGUE_MISSING_DETAIL =
  'No careers catalogue is imported on this server yet; its operator imports an O*NET release with `nature careers import PATH`.';

export interface FieldError {
  /** JSON Pointer to the field, within the part of the request named by `in`. */
  path: string;
  in: 'body' | 'query' | 'path' | 'header';
  message: string;
}

/** An error the client caused, answered as RFC 9457 problem+json. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; [field: string]: unknown } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** A problem's `type`: the URL of its code's entry in the error catalogue that the server serves at /docs/errors. */
export const problemType = (code: ProblemCode, origin: string) => `${origin}/docs/errors#${code}`;

/**
 * The body, its `type` under `origin` (origin.ts requestOrigin, or relative); extra members (errors, ids) follow and can never
 * replace a standard one.
 */
export function problemBody(code: ProblemCode, detail: string, requestId: string, origin: string, extra: Record<string, unknown> = {}) {
  const { status, title } = problemCodes[code];
  // A detail or field that quotes the request (an id from the path, an invalid field) never echoes a credential.
  const standard = { type: problemType(code, origin), title, status, detail: redactSecrets(detail), code, request_id: requestId };
  const quoted = redactSecretsIn(extra);
  return { ...quoted, ...standard, ...Object.fromEntries(Object.entries(quoted).filter(([key]) => !(key in standard))) };
}
