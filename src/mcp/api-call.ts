import type { FastifyInstance } from 'fastify';

/** One call of the public API, as a tool makes it. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path, its ids already in it (encoded). */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
}

/** The API's problem details (RFC 9457), as it answered a refused call. */
export interface Problem {
  code: string;
  detail: string;
  [member: string]: unknown;
}

/** A call the API refused: its status and problem, which the model reads. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`The Nature Profile API answered ${status} ${problem.code}: ${problem.detail}`);
  }
}

/** Resolves with a 2xx answer's body (JSON parsed, anything else as text), or rejects with an ApiRefusal. */
export type CallApi = (request: ApiRequest) => Promise<unknown>;

/** `/v1/nature/subjects/{id}`: each id encoded, as a path segment. */
export const pathOf = (strings: TemplateStringsArray, ...ids: string[]) =>
  strings.reduce((path, part, index) => path + part + (index < ids.length ? encodeURIComponent(ids[index]!) : ''), '');

/**
 * The public API in this process (fastify's inject), with the caller's own Authorization header: every rule of a
 * REST call (key, scope, validation, idempotency, rate limit, audit, request log) holds for a tool's call unchanged,
 * and nothing goes over the network.
 */
export function injectApi(app: FastifyInstance, authorization: string): CallApi {
  return async ({ method, path, query = {}, body, idempotencyKey }) => {
    const search = new URLSearchParams(
      Object.entries(query).flatMap(([name, value]): [string, string][] => (value === undefined ? [] : [[name, String(value)]])),
    ).toString();
    const answer = await app.inject({
      method,
      url: search === '' ? path : `${path}?${search}`,
      headers: {
        authorization,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(idempotencyKey !== undefined && { 'idempotency-key': idempotencyKey }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    const json = /\bjson\b/.test(String(answer.headers['content-type']));
    const parsed: unknown = json ? answer.json() : answer.body;
    if (answer.statusCode >= 200 && answer.statusCode < 300) return parsed;
    throw new ApiRefusal(answer.statusCode, parsed as Problem);
  };
}
