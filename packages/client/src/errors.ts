import type { Problem, ProblemCode } from './api.js';

/** A field the server refused: `path` is a JSON Pointer into the part of the request that `in` names. */
export type FieldError = NonNullable<Problem['errors']>[number];
type AssessmentStatus = NonNullable<Problem['assessment_status']>;
type Scope = NonNullable<Problem['required_scope']>;
type PlanName = NonNullable<Problem['plan']>;

/** An error answer that is not a problem+json body (a proxy's HTML 502, say). */
export const UNEXPECTED_RESPONSE = 'unexpected_response';
export type NatureErrorCode = ProblemCode | typeof UNEXPECTED_RESPONSE;

/** The members each code always carries beyond the standard ones (README "Errors"). */
interface Carried {
  subject_exists: { subject_id: string };
  subject_erased: { subject_id: string };
  assessment_in_progress: { assessment_id: string };
  assessment_not_open: { assessment_status: AssessmentStatus };
  validation_failed: { errors: FieldError[] };
  plan_quota_exceeded: { plan: PlanName; hard_cap: number; resets_at: string };
}

/**
 * A NatureApiError whose `code` is one of C, with the members that code carries no longer optional; a union
 * per code, so that comparing `code` narrows the rest too.
 */
export type NatureApiErrorOf<C extends NatureErrorCode> = C extends unknown
  ? NatureApiError & { readonly code: C } & (C extends keyof Carried ? Carried[C] : unknown)
  : never;

/** A non-2xx answer of the API, after any retries: the problem+json body's members, and the response headers. */
export class NatureApiError extends Error {
  override readonly name = 'NatureApiError';
  readonly status: number;
  readonly code: NatureErrorCode;
  readonly detail: string;
  readonly request_id: string | undefined;
  readonly subject_id?: string;
  readonly assessment_id?: string;
  readonly assessment_status?: AssessmentStatus;
  /** On insufficient_scope when the key lacks a scope (not when a pk key leaves the item bank). */
  readonly required_scope?: Scope;
  readonly errors?: FieldError[];
  /** On plan_quota_exceeded: the account's plan, its hard cap, and when starts are taken again (Retry-After says the same). */
  readonly plan?: PlanName;
  readonly hard_cap?: number;
  readonly resets_at?: string;
  /** The body as received, for members this class does not name. */
  readonly problem: Problem | undefined;

  constructor(
    status: number,
    body: unknown,
    readonly headers: Headers,
  ) {
    const problem = isProblem(body) ? (body as Problem & Record<string, unknown>) : undefined;
    const detail = problem
      ? String(problem.detail)
      : `The server answered ${status} (${headers.get('content-type') ?? 'no content type'}), not a problem+json body.`;
    super(detail);
    this.status = status;
    this.problem = problem;
    this.code = problem ? (problem.code as ProblemCode) : UNEXPECTED_RESPONSE;
    this.detail = detail;
    this.request_id = problem ? String(problem.request_id) : (headers.get('request-id') ?? undefined);
    if (problem) {
      for (const member of [
        'subject_id',
        'assessment_id',
        'assessment_status',
        'required_scope',
        'errors',
        'plan',
        'hard_cap',
        'resets_at',
      ] as const) {
        if (problem[member] !== undefined) Object.assign(this, { [member]: problem[member] });
      }
    }
  }
}

/** True for a NatureApiError (with one of `codes`, when given): narrows `code` and what that code carries. */
export function isNatureApiError<C extends NatureErrorCode = NatureErrorCode>(error: unknown, ...codes: C[]): error is NatureApiErrorOf<C> {
  return error instanceof NatureApiError && (codes.length === 0 || (codes as NatureErrorCode[]).includes(error.code));
}

function isProblem(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { status?: unknown }).status === 'number'
  );
}
