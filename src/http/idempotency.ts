import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataKeyStore } from '../ports/data-keys.js';
import { IDEMPOTENCY_TTL_MS, type IdempotencyStore } from '../ports/idempotency.js';
import { open, type PiiEnvelope, seal } from '../privacy/pii-envelope.js';
import { compareCodeUnits } from '../support/code-units.js';
import { ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's Idempotency-Key in its API key's scope (`unscoped`: as stored before scopes): checked before
     * validation, claimed after it (as `holder`, the request's events tagged with `tag`: idempotencyTag), then
     * completed or released on send.
     */
    idempotency: { key: string; unscoped: string; holder: string | null; tag: string | null } | null;
  }
  interface FastifyContextConfig {
    /** The route takes no Idempotency-Key: the MCP endpoint, whose tools send their own with each API call they make. */
    ignoresIdempotencyKey?: boolean;
  }
}

/** A request cut off by a crash holds its key this long; then a retry runs it again. */
const LEASE_MS = 30_000;
const KEY = /^[\x21-\x7e]{1,255}$/;
const KEYED_METHODS = new Set(['POST', 'PATCH']);
/** Headers a replay repeats; request-id too, so the replayed body and its header agree. */
const REPLAYED_HEADERS = ['content-type', 'request-id'];

/** The first answer as stored: its body sealed under the subject's data key when it names one. */
interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
  sealed?: { subject_id: string; envelope: PiiEnvelope };
}

/**
 * Idempotency-Key on POST and PATCH. The key is claimed only once the request passed authentication and
 * validation, so a rejected request stores nothing; the answer is stored before it is sent, and only
 * when the request ran to an outcome (2xx, or 404/409/410): a 5xx or a validation failure found by the
 * handler frees the key for a retry.
 */
export function registerIdempotency(app: FastifyInstance, clock: () => Date): void {
  app.decorateRequest('idempotency', null);

  // Callbacks, not async functions: a request without an Idempotency-Key (every GET) passes them without a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      checkKey(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  app.addHook('preHandler', (request, reply, done) => {
    if (request.idempotency === null) return done();
    claimKey(request, reply, clock).then(() => done(), done);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.idempotency?.holder) return done(null, payload);
    settle(request, reply, payload).then(() => done(null, payload), done);
  });
}

/** The request's Idempotency-Key, checked and scoped to its API key, before validation: none on a request that takes none. */
function checkKey(request: FastifyRequest): void {
  const key = request.headers['idempotency-key'];
  // Unknown routes (404, 405) run no request, so they hold no key; nor does the dashboard, whose people have no API key.
  if (!KEYED_METHODS.has(request.method) || key === undefined || request.is404 || request.apiKey === undefined) return;
  if (request.routeOptions.config.ignoresIdempotencyKey === true) return;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new ProblemError('validation_failed', 'Idempotency-Key must be 1..255 visible ASCII characters, sent once.', {
      errors: [
        {
          path: '/idempotency-key',
          in: 'header',
          message: '`Idempotency-Key` must be 1 to 255 visible ASCII characters, such as a UUID.',
        },
      ],
    });
  }
  // A publishable key is in every end user's page: its keys are kept apart per path (the one assessment its
  // secret opens), so a browser can neither take the caller's server's keys in advance nor another page's.
  const unscoped = request.apiKey.type === 'pk' ? `pk ${request.url.split('?')[0]} ${key}` : key;
  // Each API key has its own keys: another key sending the same one is another request, never answered what this
  // key was (a client_secret, say). A key id has no space, so no scoped key is an unscoped one.
  request.idempotency = { key: `${request.apiKey.id} ${unscoped}`, unscoped, holder: null, tag: null };
}

/** Claims the key for this request, or answers in its stead: the stored answer replayed, or why the key cannot be used now. */
async function claimKey(request: FastifyRequest, reply: FastifyReply, clock: () => Date): Promise<void> {
  if (request.idempotency === null) return;
  const { key, unscoped } = request.idempotency;
  // Answers stored before keys were scoped (for 24 h after the upgrade) name no API key: the same request replays them.
  const claimWith = (fingerprint: string) =>
    request.env.idempotency.claim({
      key,
      unscopedKey: unscoped,
      fingerprint,
      now: clock(),
      leaseMs: LEASE_MS,
      ttlMs: IDEMPOTENCY_TTL_MS,
    });
  let fingerprint = fingerprintOf(request.method, request.url, request.body);
  await releaseUnreleased(request.env.idempotency, key);
  let claim = await claimWith(fingerprint);
  // A key first used before fingerprints were canonical (kept 24 h) holds the body's fingerprint in its own key order.
  if (claim.outcome === 'reused') {
    fingerprint = orderedFingerprintOf(request.method, request.url, request.body);
    claim = await claimWith(fingerprint);
  }
  switch (claim.outcome) {
    case 'claimed':
      // A closed assessment's secret gets only the replay of what it stored (errors.ts answers its 401).
      if (request.closedSecretRefusal !== null) {
        await request.env.idempotency.release(key, claim.holder);
        throw request.closedSecretRefusal;
      }
      request.idempotency.holder = claim.holder;
      request.idempotency.tag = idempotencyTag(key, fingerprint);
      return;
    case 'in_use':
      throw new ProblemError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still running; retry when it has finished.',
        {},
        { 'retry-after': '1' },
      );
    case 'reused':
      throw new ProblemError(
        'idempotency_key_reused',
        'This Idempotency-Key was used for a different request (method, path or body); use a new key.',
      );
    case 'replay':
      await replay(reply, JSON.parse(claim.response) as StoredAnswer, request.env.dataKeys, claim.unscoped ? unscoped : key);
  }
}

/**
 * Keys this process holds for requests that ended but whose release or answer the store did not take (it did not
 * answer: a failover under way), by store. The caller's retry comes with the same key: here it releases it first, rather than
 * meet 409 idempotency_key_in_use until the lease runs out. (A retry that reaches another replica waits for the lease.)
 */
const unreleased = new WeakMap<IdempotencyStore, Map<string, string>>();
const MAX_UNRELEASED = 10_000;

function keepUnreleased(store: IdempotencyStore, key: string, holder: string): void {
  let keys = unreleased.get(store);
  if (keys === undefined) {
    keys = new Map();
    unreleased.set(store, keys);
  }
  keys.set(key, holder);
  // Bounded through a long outage: the oldest are left to their leases.
  if (keys.size > MAX_UNRELEASED) keys.delete(keys.keys().next().value!);
}

/** Releases `key` if this process still holds it for a request that has ended; a store that still does not answer throws. */
async function releaseUnreleased(store: IdempotencyStore, key: string): Promise<void> {
  const holder = unreleased.get(store)?.get(key);
  if (holder === undefined) return;
  await store.release(key, holder);
  unreleased.get(store)?.delete(key);
}

/** Stores the answer for replays, or frees the key for a retry. */
async function settle(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  if (!request.idempotency?.holder) return;
  const { key, holder } = request.idempotency;
  request.idempotency = null;
  const status = reply.statusCode;
  if (!(status < 300 || status === 404 || status === 409 || status === 410)) {
    // The answer (an error) stands whatever comes of this: thrown, a failed release would turn a 503 into a 500.
    await request.env.idempotency.release(key, holder).catch((error: unknown) => {
      request.log.warn({ err: error }, 'an Idempotency-Key could not be released; a retry here releases it first');
      keepUnreleased(request.env.idempotency, key, holder);
    });
    return;
  }
  const headers = Object.fromEntries(
    REPLAYED_HEADERS.flatMap((name) => {
      const value = reply.getHeader(name);
      return value === undefined ? [] : [[name, String(value)]];
    }),
  );
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
  try {
    const answer = await sealed({ status, headers, body }, request.env.dataKeys, key);
    await request.env.idempotency.complete(key, holder, JSON.stringify(answer));
  } catch (error) {
    // Answered as an error instead (503 when the store does not answer): the retry here releases the key, runs the
    // request again, and finds its events in the log by their tag, answered as first decided.
    keepUnreleased(request.env.idempotency, key, holder);
    throw error;
  }
}

/**
 * What makes two requests the same: method, path with query, and the body as validated, in canonical form: only
 * what the request means counts, not how it was written (members in any order: `{"a":1,"b":2}` is `{"b":2,"a":1}`,
 * at any depth; `"2026-01-31T09:30:00Z"` and `"2026-01-31T09:30:00.000Z"` are one instant).
 */
export function fingerprintOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${JSON.stringify(canonical(body ?? null))}`)
    .digest('base64url');
}

/**
 * What the events a keyed request appends carry in their metadata: a retry after a crash finds by it what the
 * first run wrote (commands/idempotent-retry.ts). A digest, so the log never holds the key itself.
 */
function idempotencyTag(key: string, fingerprint: string): string {
  return createHash('sha256').update(`${key}\n${fingerprint}`).digest('base64url');
}

/** The fingerprint of keys first used before fingerprints were canonical: the validated body's members in their order. */
function orderedFingerprintOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

/** The value with every object's members sorted by name, at every depth. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => compareCodeUnits(a, b));
  return Object.fromEntries(entries.map(([name, member]) => [name, canonical(member)]));
}

/** A 2xx answer that names a subject may hold its personal data: sealed, an erasure makes it unreadable too. */
async function sealed(answer: StoredAnswer & { body: string }, dataKeys: DataKeyStore, key: string): Promise<StoredAnswer> {
  const subjectId = answer.status < 300 ? subjectOf(answer.body) : undefined;
  if (subjectId === undefined) return answer;
  const envelope = seal(await dataKeys.keyFor(subjectId), answer.body, subjectId, associatedLabel(key));
  return { status: answer.status, headers: answer.headers, sealed: { subject_id: subjectId, envelope } };
}

function subjectOf(body: string): string | undefined {
  const resource = JSON.parse(body) as { object?: unknown; id?: unknown; subject_id?: unknown };
  const id = resource.object === 'subject' ? resource.id : resource.subject_id;
  return typeof id === 'string' ? id : undefined;
}

const associatedLabel = (key: string) => `idempotency:${key}`;

async function replay(reply: FastifyReply, answer: StoredAnswer, dataKeys: DataKeyStore, key: string): Promise<FastifyReply> {
  let body = answer.body ?? '';
  if (answer.sealed !== undefined) {
    const { subject_id, envelope } = answer.sealed;
    const dataKey = await dataKeys.find(subject_id);
    if (dataKey === undefined) {
      throw new ProblemError(
        'subject_erased',
        `The subject ${subject_id} was erased; the answer stored for this Idempotency-Key is gone with it.`,
        {
          subject_id,
        },
      );
    }
    body = open(dataKey, envelope, subject_id, associatedLabel(key)) as string;
  }
  return reply
    .code(answer.status)
    .headers({ ...answer.headers, 'idempotent-replayed': 'true' })
    .send(body);
}
