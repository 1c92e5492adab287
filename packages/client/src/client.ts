import createClient from 'openapi-fetch';
import type { InitArgs, InitOf, PathsWith, paths, RawClient, ResponseOf } from './api.js';
import { NatureApiError } from './errors.js';
import { idempotencyKeys } from './idempotency.js';
import { type ListItem, type ListPath, paginate } from './pagination.js';
import { type NatureResources, natureResources, type Send } from './resources.js';
import { defaultTimeoutMs, type RetryOptions, retryingFetch } from './retry.js';

export interface NatureClientOptions {
  /** A secret key (`test_sk_…` for the sandbox, `live_sk_…` for production): keep it on your servers. */
  apiKey: string;
  /** Where the API is, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The fetch to send requests with (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  retries?: RetryOptions;
  /** How long one attempt of a call may take, from sending to the last byte (default 30 s); a call can set its own. */
  timeoutMs?: number;
}

type Caller<M extends 'get' | 'post' | 'patch' | 'delete'> = <P extends PathsWith<M>>(
  path: P,
  ...init: InitArgs<InitOf<M, P>>
) => Promise<ResponseOf<M, P>>;

/**
 * The resources (`nature.subjects.create(…)`), and underneath them the API by path: each of GET, POST, PATCH
 * and DELETE takes a path as the document writes it and resolves with the 2xx body, typed by the document;
 * any other answer (after retries) rejects with a NatureApiError.
 */
export interface NatureClient extends NatureResources {
  GET: Caller<'get'>;
  POST: Caller<'post'>;
  PATCH: Caller<'patch'>;
  DELETE: Caller<'delete'>;
  /** Every item of a cursor list, page by page: `for await (const subject of nature.list('/v1/nature/subjects'))`. */
  list<P extends ListPath>(path: P, ...init: InitArgs<InitOf<'get', P>>): AsyncIterableIterator<ListItem<P>>;
  /** The openapi-fetch client underneath, with the same key, Idempotency-Keys and retries: its answers keep the response (headers). */
  raw: RawClient;
}

export function createNatureClient({
  apiKey,
  baseUrl,
  fetch = (request) => globalThis.fetch(request),
  retries,
  timeoutMs = defaultTimeoutMs,
}: NatureClientOptions): NatureClient {
  const raw = createClient<paths>({
    baseUrl,
    fetch: retryingFetch(fetch, retries, timeoutMs),
    headers: { authorization: `Bearer ${apiKey}` },
  });
  raw.use(idempotencyKeys);
  const request = raw.request as (
    method: string,
    path: string,
    init?: object,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const send = (method: string) => async (path: string, init?: object) => {
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) throw new NatureApiError(response.status, error, response.headers);
    return data;
  };
  const call: Send = (method, path, init, options = {}) =>
    send(method)(path, {
      ...init,
      // A fetch of the call's own only when it needs its own time-out: openapi-fetch takes one per call.
      ...(options.timeoutMs !== undefined && { fetch: retryingFetch(fetch, retries, options.timeoutMs) }),
      ...(options.signal && { signal: options.signal }),
      headers: { ...options.headers, ...(options.idempotencyKey !== undefined && { 'idempotency-key': options.idempotencyKey }) },
    });
  return {
    ...natureResources(call),
    GET: send('GET') as Caller<'get'>,
    POST: send('POST') as Caller<'post'>,
    PATCH: send('PATCH') as Caller<'patch'>,
    DELETE: send('DELETE') as Caller<'delete'>,
    list: (path, ...init) => paginate(send('GET'), path, ...init),
    raw,
  };
}
