// The calls a publishable key may make with a client secret, their problem+json errors, and when
// and how long to wait before a retry. Free of DOM types: the unit tests run it under Node.

import type { Language } from './language.js';

export const TOTAL_ITEMS = 76;

export interface Answer {
  item_id: string;
  value: number;
  /** When the person chose it, in the server's clock (timing.ts); absent only for answers stored by an older version. */
  answered_at?: string;
  /** How long the person took over it (timing.ts); absent with answered_at. */
  response_time_ms?: number;
}

export interface Item {
  id: string;
  text: string;
}

export interface ScaleLabel {
  value: number;
  label: string;
}

export interface ItemBank {
  items: Item[];
  labels: ScaleLabel[];
}

export interface AssessmentState {
  id: string;
  status: string;
  responses_received: number;
  unanswered_item_ids: string[];
  /** The caller lets the person see their result: the secret then reads the profile's chart after completion. */
  result_visible_to_subject: boolean;
  /** The language the assessment is in (its items, its profile); absent from servers older than French. */
  language?: string;
}

/** How the result is drawn: as wide as the component (320..1600 px), in the page's colour scheme. */
export interface ChartOptions {
  width: number;
  theme: 'light' | 'dark';
}

/** What every failure is reduced to: the problem's fields, or `network_error` when fetch rejected. */
export interface ApiError {
  code: string;
  status: number | null;
  title: string;
  detail: string;
  request_id: string | null;
  /** Milliseconds from Retry-After, when the answer had one. */
  retryAfterMs: number | null;
  /**
   * What became of the assessment, when the API refused because it is no longer open (its 401 to the
   * secret of a closed assessment, its 409 assessment_not_open): `scoring`, `completed`, `abandoned`, `expired`.
   */
  assessment_status?: string;
  /** The scope the key lacks, when a 403 insufficient_scope names one (else the refusal is about the page's origin). */
  required_scope?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** The part of `fetch` used here, so tests can pass a fake and Node's types suffice. */
export type FetchLike = (url: string, init: FetchInit) => Promise<ResponseLike>;
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  keepalive?: boolean;
  signal?: AbortSignal;
}
export interface ResponseLike {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
  text(): Promise<string>;
}

/**
 * A request that got no answer at all. (An origin the key does not allow is not one: the API's 403 carries
 * Access-Control-Allow-Origin so that the page can read it.)
 */
export const NETWORK_MESSAGE = 'Could not reach the Nature Profile API. Check your internet connection.';

export interface ApiConfig {
  base: string;
  publishableKey: string;
  clientSecret: string;
  subjectId: string;
  assessmentId: string;
  fetch: FetchLike;
  /**
   * Called with the Date header of every response the page may read (the API exposes it), as the response
   * arrives, before its body is read: the server's clock is estimated from it (ServerClock).
   */
  onServerDate?: (date: string) => void;
}

export interface Api {
  /** The item bank in `language`: its items' text and the scale's labels. */
  items(language: Language): Promise<Result<ItemBank>>;
  assessment(): Promise<Result<AssessmentState>>;
  /**
   * PATCHes one batch, always with `keepalive` (so a batch under way when the page goes still arrives; a
   * batch is a few KB, far below the browser's 64 KiB keepalive budget). Unless `leaving`, the request
   * gives up after SUBMIT_TIMEOUT_MS (a network error, retried with the same key and body), so a hung
   * request cannot hold up the outbox; a batch sent as the page goes has no timeout, it must outlive the page.
   */
  submit(idempotencyKey: string, responses: Answer[], leaving: boolean): Promise<Result<AssessmentState>>;
  /**
   * The subject's latest profile (its id), readable with the secret once a result-visible assessment is
   * completed; refused (401) while it is scoring, or when the caller did not let the person see it.
   */
  latestProfile(): Promise<Result<{ id: string }>>;
  /** The profile's chart, an SVG document, under the same rule. */
  chart(profileId: string, options: ChartOptions): Promise<Result<string>>;
}

export const SUBMIT_TIMEOUT_MS = 30_000;

export function createApi(config: ApiConfig): Api {
  const base = config.base.replace(/\/+$/, '');
  const assessmentUrl = `${base}/v1/nature/subjects/${encodeURIComponent(config.subjectId)}/assessments/${encodeURIComponent(config.assessmentId)}`;
  const auth = { Authorization: `Bearer ${config.publishableKey}`, 'Nature-Client-Secret': config.clientSecret };
  const request: FetchLike = async (url, init) => {
    const response = await config.fetch(url, init);
    const date = response.headers.get('date');
    if (date !== null) config.onServerDate?.(date);
    return response;
  };

  async function call<T>(url: string, init: FetchInit, read: (body: unknown) => T | null): Promise<Result<T>> {
    let response: ResponseLike;
    try {
      response = await request(url, init);
    } catch {
      return { ok: false, error: networkError() };
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) return { ok: false, error: problemFrom(response, body) };
    const value = read(body);
    return value === null ? { ok: false, error: unexpectedBody(response) } : { ok: true, value };
  }

  return {
    items: (language) => call(`${base}/v1/nature/items?language=${language}`, { method: 'GET', headers: auth }, readItemBank),
    assessment: () => call(assessmentUrl, { method: 'GET', headers: auth }, readAssessment),
    submit: (idempotencyKey, responses, leaving) =>
      call(
        assessmentUrl,
        {
          method: 'PATCH',
          headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
          body: JSON.stringify({ responses }),
          keepalive: true,
          ...(leaving ? {} : { signal: AbortSignal.timeout(SUBMIT_TIMEOUT_MS) }),
        },
        readAssessment,
      ),
    async chart(profileId, { width, theme }) {
      const url = `${base}/v1/nature/profiles/${encodeURIComponent(profileId)}/chart.svg?theme=${theme}&width=${width}`;
      let response: ResponseLike;
      try {
        response = await request(url, { method: 'GET', headers: auth });
      } catch {
        return { ok: false, error: networkError() };
      }
      if (!response.ok) return { ok: false, error: problemFrom(response, await response.json().catch(() => null)) };
      try {
        return { ok: true, value: await response.text() };
      } catch {
        // The connection dropped half-way through the body.
        return { ok: false, error: networkError() };
      }
    },
    latestProfile: () =>
      call(`${base}/v1/nature/subjects/${encodeURIComponent(config.subjectId)}/profile`, { method: 'GET', headers: auth }, (body) =>
        isRecord(body) && typeof body.id === 'string' ? { id: body.id } : null,
      ),
  };
}

function networkError(): ApiError {
  return { code: 'network_error', status: null, title: 'Network error', detail: NETWORK_MESSAGE, request_id: null, retryAfterMs: null };
}

function problemFrom(response: ResponseLike, body: unknown): ApiError {
  const problem = isRecord(body) ? body : {};
  const text = (key: string) => (typeof problem[key] === 'string' ? (problem[key] as string) : null);
  const error: ApiError = {
    code: text('code') ?? `http_${response.status}`,
    status: response.status,
    title: text('title') ?? `HTTP ${response.status}`,
    detail: text('detail') ?? `The Nature Profile API answered ${response.status}.`,
    request_id: text('request_id') ?? response.headers.get('request-id'),
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  };
  const scope = text('required_scope');
  if (scope !== null) error.required_scope = scope;
  const status = text('assessment_status');
  if (status === null) return error;
  error.assessment_status = status;
  // The secret of an assessment that can no longer take answers (abandoned, expired): say that, not "unauthenticated".
  if (response.status === 401 && !FINISHED.has(status)) {
    return {
      ...error,
      code: 'assessment_not_open',
      title: 'Assessment not open',
      detail: `This assessment is ${status} and no longer takes answers.`,
    };
  }
  return error;
}

/** Statuses of an assessment that has all its answers. */
const FINISHED = new Set(['scoring', 'completed']);

/**
 * A refusal because the assessment is closed: `finished` when it is scoring or completed (all 76 are in,
 * from an earlier visit or elsewhere: nothing is wrong), `not_open` when it can no longer take answers.
 */
export function closedOutcome(error: ApiError): 'finished' | 'not_open' | null {
  if (error.assessment_status === undefined) return null;
  return FINISHED.has(error.assessment_status) ? 'finished' : 'not_open';
}

function unexpectedBody(response: ResponseLike): ApiError {
  return {
    code: 'unexpected_response',
    status: response.status,
    title: 'Unexpected response',
    detail: 'The Nature Profile API sent an answer this component does not understand.',
    request_id: response.headers.get('request-id'),
    retryAfterMs: null,
  };
}

/** Retry-After in seconds (the API's form) or as an HTTP date. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Failures that the same request may get past later; anything else needs a person to act. */
export function isRetryable(error: ApiError): boolean {
  if (error.status === null) return error.code === 'network_error';
  return error.status >= 500 || error.status === 429 || error.code === 'idempotency_key_in_use';
}

const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

/**
 * Wait before retry number `attempt` (1-based): Retry-After when the server gave one, else exponential
 * from 1 s capped at 30 s, with up to 20 % taken off at random so many pages do not retry in step.
 */
export function retryDelay(attempt: number, error: ApiError, random: () => number): number {
  return error.retryAfterMs ?? backoffDelay(attempt, random);
}

/** Exponential from 1 s capped at 30 s, less up to 20 % at random: the wait before try `attempt` + 1 with no Retry-After. */
function backoffDelay(attempt: number, random: () => number): number {
  const exponential = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (1 - 0.2 * random()));
}

function readItemBank(body: unknown): ItemBank | null {
  if (!isRecord(body) || !Array.isArray(body.data) || !isRecord(body.scale) || !Array.isArray(body.scale.labels)) return null;
  const items = body.data.filter((item): item is Item => isRecord(item) && typeof item.id === 'string' && typeof item.text === 'string');
  const labels = body.scale.labels.filter(
    (label): label is ScaleLabel => isRecord(label) && typeof label.value === 'number' && typeof label.label === 'string',
  );
  if (items.length === 0 || labels.length === 0) return null;
  return { items: items.map(({ id, text }) => ({ id, text })).sort((a, b) => a.id.localeCompare(b.id)), labels };
}

function readAssessment(body: unknown): AssessmentState | null {
  if (
    !isRecord(body) ||
    typeof body.id !== 'string' ||
    typeof body.status !== 'string' ||
    typeof body.responses_received !== 'number' ||
    !Array.isArray(body.unanswered_item_ids)
  ) {
    return null;
  }
  const unanswered = body.unanswered_item_ids.filter((id): id is string => typeof id === 'string');
  return {
    id: body.id,
    status: body.status,
    responses_received: body.responses_received,
    unanswered_item_ids: unanswered,
    result_visible_to_subject: body.result_visible_to_subject === true,
    ...(typeof body.language === 'string' && { language: body.language }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Open assessments take answers; any other status means the answers are in (or it can no longer take them). */
export const isOpen = (status: string) => status === 'created' || status === 'in_progress';
