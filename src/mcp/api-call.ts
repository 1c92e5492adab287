import type { FastifyInstance } from 'fastify';
import { idPattern } from '../domain/ids.js';

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
    // The fields a validation failure names, in the one line a client may show alone.
    const fields = Array.isArray(problem.errors)
      ? problem.errors.map((error: { message?: unknown }) => ` ${String(error.message)}`).join('')
      : '';
    super(`The Nature Profile API answered ${status} ${problem.code}: ${problem.detail}${fields}`);
  }
}

/** Resolves with a 2xx answer's body (JSON parsed, anything else as text), or rejects with an ApiRefusal. */
export type CallApi = (request: ApiRequest) => Promise<unknown>;

/** Arguments a call cannot be made with (an id that is no id, say): told to the model, never sent. */
export class InputError extends Error {}

/** An id of the API of any kind (sub_…, asm_…, prf_…, evt_…): nothing that could be a path's "." or "..". */
const ID = idPattern('[a-z]{3}');

/** `/v1/nature/subjects/{id}`, each id checked to be one, so no argument can walk the path elsewhere. */
export function pathOf(strings: TemplateStringsArray, ...ids: string[]): string {
  for (const id of ids) if (!ID.test(id)) throw new InputError(`${JSON.stringify(id)} is not an id of the API (such as sub_01M7…).`);
  return strings.reduce((path, part, index) => path + part + (ids[index] ?? ''), '');
}

/** The headers of the MCP request that a tool's call goes on with. */
export interface Caller {
  authorization: string;
  /** The Host it came to, so the API's problems name the origin the caller reached (inject's own is localhost). */
  host: string | undefined;
}

/**
 * The public API in this process (fastify's inject), with the caller's own Authorization and Host headers: every
 * rule of a REST call (key, scope, validation, idempotency, rate limit, audit, request log) holds for a tool's call
 * unchanged, its problems name the same origin, and nothing goes over the network.
 */
export function injectApi(app: FastifyInstance, { authorization, host }: Caller): CallApi {
  return async ({ method, path, query = {}, body, idempotencyKey }) => {
    const search = new URLSearchParams(
      Object.entries(query).flatMap(([name, value]): [string, string][] => (value === undefined ? [] : [[name, String(value)]])),
    ).toString();
    const answer = await app.inject({
      method,
      url: search === '' ? path : `${path}?${search}`,
      headers: {
        authorization,
        ...(host !== undefined && { host }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(idempotencyKey !== undefined && { 'idempotency-key': idempotencyKey }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    const json = /\bjson\b/.test(String(answer.headers['content-type']));
    const parsed: unknown = json ? answer.json() : answer.body;
    if (answer.statusCode >= 200 && answer.statusCode < 300) return parsed;
    const isProblem = json && typeof (parsed as Problem).code === 'string' && typeof (parsed as Problem).detail === 'string';
    throw new ApiRefusal(
      answer.statusCode,
      isProblem ? (parsed as Problem) : { code: 'unexpected_response', detail: answer.body.slice(0, 500) },
    );
  };
}
