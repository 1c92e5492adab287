import fc from 'fast-check';
import { problemCodes } from '../../src/http/problem.js';
import { mintKeysInto } from '../support/keys.js';
import { knownResponses } from '../support/known-answers.js';
import { type ServerProcess, startServer } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { digestDiff, type StoreDigest, StoreReader } from '../support/stores.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';
import { dashboardPerson, fuzzDashboardForms } from './dashboard-forms.js';
import { mcpChecks } from './mcp-requests.js';
import { type RawOutcome, type RawResponse, sendRaw } from './raw-http.js';
import { checks, type FuzzContext, type FuzzRequest, type KeyName, type RefName, toBytes } from './requests.js';

/**
 * The fuzz suite: fast-check generates bad requests for every route (one property per category of
 * defect and route) and sends them as raw bytes to the server running as a process. Each answer must be
 * a 4xx the contract allows, as a valid problem+json with the request id, and the stores must not move:
 * a digest of the log, the webhook queue, the read models and the data keys (read-only from the
 * server's SQLite files) is taken after every request. A failing property is shrunk by fast-check and
 * reported with the exact request and answer.
 */
export interface FuzzOptions {
  /** Runs per property (one property per category and route; the HTTP-layer ones get ten times as many). */
  runs: number;
  seed?: number;
  /** Only the properties whose "category route" contains this text. */
  only?: string;
  progress?: (line: string) => void;
}

export interface FuzzFailure {
  category: string;
  route: string;
  variant: string;
  problems: string[];
  request: string;
  response: string;
  shrinks: number;
}

export interface FuzzReport {
  figures: [string, string | number][];
  failures: FuzzFailure[];
  seed: number;
}

/** The server's settings for the run: fast webhook retries, and a rate limit the suite never reaches. */
export const fuzzServerSettings = {
  NATURE_WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,500ms',
  NATURE_WEBHOOK_TIMEOUT_MS: '2000',
  NATURE_RATE_LIMIT_PER_SECOND: '1000000',
  NATURE_RATE_LIMIT_BURST: '1000000',
  LOG_LEVEL: 'info',
};

/** How many failing runs of one property are shrunk before the smallest so far is reported. */
const SHRINK_FAILURES = 12;
/** How many smaller candidates are tried, failing or not, once a property has failed. */
const SHRINK_ATTEMPTS = 40;
/** Passes per property: each looks for a defect of a variant not reported yet. */
const MAX_PASSES = 8;
const HTTP_LAYER = new Set(['unknown route', 'headers', 'request line', 'truncated body']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Body = Record<string, any>;

export async function runFuzzSuite(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const log = options.progress ?? (() => undefined);
  const began = Date.now();
  const dir = tempDir('nature-fuzz-');
  const env = { ...fuzzServerSettings, NATURE_DATA_DIR: dir.path };
  const keyNames: KeyName[] = ['rw', 'readOnly', 'writeOnly', 'pk', 'live', 'revoked', 'rotated'];
  const raws = await mintKeysInto(dir.path, [
    { environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'] },
    { environment: 'test', type: 'sk', scopes: ['nature:read'] },
    { environment: 'test', type: 'sk', scopes: ['nature:write'] },
    { environment: 'test', type: 'pk', scopes: ['nature:read'] },
    { environment: 'live', type: 'sk', scopes: ['nature:read', 'nature:write'] },
    { environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'], retired: 'revoked' },
    { environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'], retired: 'rotated' },
  ]);
  const keys = Object.fromEntries(keyNames.map((name, i) => [name, raws[i]!])) as Record<KeyName, string>;
  const receiver = await startReceiver(() => 200);
  let server: ServerProcess = await startServer(env);
  const servers = [server];
  const store = new StoreReader(dir.path);
  let counter = 0;
  const ctx: FuzzContext = { keys, refs: {} as Record<RefName, string>, receiverUrl: receiver.url, fresh: () => `${seed}-${++counter}` };

  try {
    // ---- A well-behaved client, for seeding and repairs (not counted as fuzz requests).
    const api = async (method: string, path: string, body?: unknown, key: string = keys.rw) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Body };
    };
    const must = async (expected: number, method: string, path: string, body?: unknown, key?: string) => {
      const answer = await api(method, path, body, key);
      if (answer.status !== expected)
        throw new Error(`fuzz set-up: ${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const until = async <T>(probe: () => Promise<T | undefined>, what: string): Promise<T> => {
      for (let i = 0; i < 200; i++) {
        const value = await probe();
        if (value !== undefined) return value;
        await sleep(50);
      }
      throw new Error(`fuzz set-up: ${what} did not happen`);
    };
    const subject = async (key = keys.rw) =>
      (await must(201, 'POST', '/v1/nature/subjects', validSubject(`fuzz-seed-${ctx.fresh()}`), key)).id as string;
    const openAssessment = async () => {
      const id = await subject();
      const asm = (await must(201, 'POST', `/v1/nature/subjects/${id}/assessments`, {})).id as string;
      await must(200, 'PATCH', `/v1/nature/subjects/${id}/assessments/${asm}`, { responses: knownResponses.slice(20, 30) });
      Object.assign(ctx.refs, { subjOpen: id, asmOpen: asm });
    };
    const completedAssessment = async (key: string) => {
      const id = await subject(key);
      const asm = (await must(201, 'POST', `/v1/nature/subjects/${id}/assessments`, {}, key)).id as string;
      await must(200, 'PATCH', `/v1/nature/subjects/${id}/assessments/${asm}`, { responses: knownResponses }, key);
      const profile = await until(async () => {
        const read = await api('GET', `/v1/nature/subjects/${id}/profile`, undefined, key);
        return read.status === 200 ? (read.body.id as string) : undefined;
      }, 'scoring');
      const event = await until(async () => {
        const list = await api('GET', '/v1/nature/events?limit=100', undefined, key);
        return (list.body.data as Body[] | undefined)?.find((e) => e.data.assessment_id === asm)?.id as string | undefined;
      }, 'the completion event');
      return { subject: id, assessment: asm, profile, event };
    };
    const doneAssessment = async () => {
      const done = await completedAssessment(keys.rw);
      Object.assign(ctx.refs, { subjDone: done.subject, asmDone: done.assessment, prfDone: done.profile, evtDone: done.event });
    };
    const endpoint = async () => {
      const created = await must(201, 'POST', '/v1/nature/webhook_endpoints', { url: receiver.url, description: 'fuzz' });
      return created.id as string;
    };

    /** Waits until the stores stop changing (webhook deliveries, reactors), then answers their digest. */
    const settle = async (): Promise<StoreDigest> => {
      let last = store.digest();
      let stable = 0;
      for (let i = 0; i < 300 && stable < 3; i++) {
        await sleep(50);
        const next = store.digest();
        stable = next.hash === last.hash ? stable + 1 : 0;
        last = next;
      }
      return last;
    };

    /** Puts back what a request that should have been refused changed: each reference names a resource in the state the routes need. */
    const repair = async () => {
      await settle();
      const asm = await api('GET', `/v1/nature/subjects/${ctx.refs.subjOpen}/assessments/${ctx.refs.asmOpen}`);
      if (asm.status !== 200 || !['created', 'in_progress'].includes(asm.body.status)) await openAssessment();
      const done = await api('GET', `/v1/nature/profiles/${ctx.refs.prfDone}`);
      if (done.status !== 200) await doneAssessment();
      const open = (await api('GET', `/v1/nature/subjects/${ctx.refs.subjDone}/assessments?limit=100`)).body.data as Body[];
      for (const a of open.filter((a) => ['created', 'in_progress'].includes(a.status)))
        await must(200, 'DELETE', `/v1/nature/subjects/${ctx.refs.subjDone}/assessments/${a.id}`);
      if ((await api('GET', `/v1/nature/subjects/${ctx.refs.subjVictim}`)).status !== 200) ctx.refs.subjVictim = await subject();
      for (const ref of ['whe', 'wheVictim'] as const) {
        const read = await api('GET', `/v1/nature/webhook_endpoints/${ctx.refs[ref]}`);
        if (read.status !== 200 || read.body.status !== 'enabled') ctx.refs[ref] = await endpoint();
      }
      if ((await api('GET', `/v1/nature/subjects/${ctx.refs.subjErased}`)).status !== 410) {
        ctx.refs.subjErased = await subject();
        await must(200, 'DELETE', `/v1/nature/subjects/${ctx.refs.subjErased}`);
      }
      return settle();
    };

    // ---- Seeding: one of each resource the routes act on, in the sandbox; and some in production.
    ctx.refs.whe = await endpoint();
    ctx.refs.wheVictim = await endpoint();
    await openAssessment();
    await doneAssessment();
    ctx.refs.subjVictim = await subject();
    ctx.refs.subjErased = await subject();
    await must(200, 'DELETE', `/v1/nature/subjects/${ctx.refs.subjErased}`);
    const live = await completedAssessment(keys.live);
    Object.assign(ctx.refs, { subjLive: live.subject, asmLive: live.assessment, prfLive: live.profile, evtLive: live.event });
    await receiver.waitFor(2);
    await dashboardPerson(dir.path);
    const initial = await settle();
    let baseline = initial;

    // ---- The runs.
    const counts = {
      requests: 0,
      byStatus: new Map<string, number>(),
      byCategory: new Map<string, number>(),
      fiveXx: 0,
      invalidProblems: 0,
      stateChanges: 0,
      errorLogLines: 0,
      closedWithoutAnswer: 0,
      serverRestarts: 0,
      skippedKnown: 0,
    };
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    let logOffset = server.output().length;
    const failures: FuzzFailure[] = [];
    let lastOutcome: RawOutcome | undefined;

    /** Sends one request and answers everything wrong with what happened: the answer, the server's log, the stores. */
    async function exercise(check: { category: string }, request: FuzzRequest): Promise<string[]> {
      const port = Number(new URL(server.url).port);
      const outcome = await sendRaw(port, toBytes(request), { ...(request.halfClose && { halfClose: true }), timeoutMs: 10_000 });
      lastOutcome = outcome;
      counts.requests += 1;
      bump(counts.byCategory, check.category);
      const problems = judge(request, outcome);
      if (outcome.kind === 'response') {
        bump(counts.byStatus, String(outcome.response.status));
        if (outcome.response.status >= 500) counts.fiveXx += 1;
        if (problems.some((p) => p.startsWith('not a valid problem'))) counts.invalidProblems += 1;
      } else {
        bump(counts.byStatus, outcome.kind === 'closed' ? 'closed' : 'no answer');
        counts.closedWithoutAnswer += 1;
      }
      // Errors the server logged while it handled this request. A request the HTTP parser refused (400, 413, 431, or no
      // answer) may still be logged after the answer, when its socket closes: give it a moment, so it is not blamed on the next.
      if (outcome.kind !== 'response' || request.halfClose || [400, 413, 431].includes(outcome.response.status)) await sleep(10);
      const output = server.output();
      const errors = output
        .slice(logOffset)
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      logOffset = output.length;
      if (errors.length > 0) {
        counts.errorLogLines += errors.length;
        problems.push(...errors.map((line) => `the server logged an error: ${summarizeLogLine(line)}`));
      }
      if (server.process.exitCode !== null || server.process.signalCode !== null) {
        problems.push(`the server died: ${server.output().slice(-1000)}`);
        server = await startServer(env);
        servers.push(server);
        logOffset = 0;
        counts.serverRestarts += 1;
      }
      const after = store.changedSinceDigest() ? store.digest() : baseline;
      if (after.hash !== baseline.hash) {
        counts.stateChanges += 1;
        problems.push(`the stores changed: ${digestDiff(baseline, after).join(', ')}`);
        baseline = await repair();
        logOffset = server.output().length;
      }
      return problems;
    }

    const all = [...checks(), ...mcpChecks()].filter(
      (check) => options.only === undefined || `${check.category} ${check.route}`.includes(options.only),
    );

    for (const [index, check] of all.entries()) {
      // Variants of this property that failed already: reported once, not sent again, so the runs left look for other defects.
      const known = new Set<string>();
      let budget = HTTP_LAYER.has(check.category) ? options.runs * 10 : options.runs;
      for (let pass = 0; budget > 0 && pass < MAX_PASSES; pass++) {
        let failingRuns = 0;
        let shrinkAttempts = 0;
        let last: { request: FuzzRequest; outcome: RawOutcome; problems: string[] } | undefined;
        const property = fc.asyncProperty(check.arbitrary, async (plan) => {
          // Enough shrinking: the smallest failure so far is the report.
          if (failingRuns > 0 && (failingRuns >= SHRINK_FAILURES || ++shrinkAttempts > SHRINK_ATTEMPTS)) return true;
          const request = plan(ctx);
          if (known.has(request.variant)) {
            counts.skippedKnown += 1;
            return true;
          }
          const problems = await exercise(check, request);
          if (problems.length === 0) return true;
          failingRuns += 1;
          last = { request, outcome: lastOutcome!, problems };
          throw new Error(problems.join('\n'));
        });
        const details = await fc.check(property, { numRuns: budget, seed: seed + pass });
        budget -= details.numRuns;
        if (!details.failed || !last) break;
        const failed: { request: FuzzRequest; outcome: RawOutcome; problems: string[] } = last;
        known.add(failed.request.variant);
        failures.push({
          category: check.category,
          route: check.route,
          variant: failed.request.variant,
          problems: failed.problems,
          request: describeRequest(failed.request),
          response: describeOutcome(failed.outcome),
          shrinks: details.numShrinks,
        });
        log(`fuzz: ${check.category} ${check.route} (${failed.request.variant}): FAILED (${failed.problems[0]})`);
      }
      if ((index + 1) % 25 === 0)
        log(`fuzz: ${index + 1}/${all.length} properties, ${counts.requests} requests, ${failures.length} failing`);
    }

    // The dashboard's forms, signed in with a valid CSRF token, each value mutated into one the form does not offer.
    const dashboard = await fuzzDashboardForms({
      url: server.url,
      dataDir: dir.path,
      refs: { endpointId: ctx.refs.whe, eventId: ctx.refs.evtDone },
      runs: options.runs,
      seed,
      only: options.only,
      storeDigest: async () => store.digest().hash,
      count: (status) => {
        counts.requests += 1;
        bump(counts.byCategory, 'dashboard form');
        bump(counts.byStatus, status);
        if (Number(status) >= 500) counts.fiveXx += 1;
      },
    });
    for (const failure of dashboard) {
      failures.push({ category: 'dashboard form', shrinks: 0, ...failure });
      log(`fuzz: dashboard form ${failure.route} (${failure.variant}): FAILED (${failure.problems[0]})`);
    }

    const final = store.digest();
    const other = store.otherTables();

    const statuses = [...counts.byStatus.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}: ${n}`);
    const figures: FuzzReport['figures'] = [
      ['seed', seed],
      ['properties', `${all.length} (${options.runs} runs each, ${options.runs * 10} for the HTTP-layer ones)`],
      [
        'requests sent',
        `${counts.requests} (shrinking included; ${counts.skippedKnown} more generated for a variant already reported, not sent)`,
      ],
      ['by category', [...counts.byCategory.entries()].map(([category, n]) => `${category}: ${n}`).join(', ')],
      ['answers by status', statuses.join(', ')],
      ['5xx', counts.fiveXx],
      ['invalid problem+json', counts.invalidProblems],
      ['closed without an answer', counts.closedWithoutAnswer],
      ['server error log lines', counts.errorLogLines],
      ['server restarts (it died)', counts.serverRestarts],
      [
        'stores (log, webhook queue, read models, data keys)',
        counts.stateChanges === 0 && final.hash === initial.hash
          ? `unchanged (digest ${initial.hash.slice(0, 16)} before and after)`
          : `changed by ${counts.stateChanges} request(s) (each put back for the next run)`,
      ],
      [
        'tables not digested',
        Object.keys(other).length === 0
          ? 'none'
          : Object.entries(other)
              .map(([name, rows]) => `${name} (${rows} rows)`)
              .join(', '),
      ],
      ['failing properties (distinct defects, shrunk)', failures.length],
      ['elapsed', `${((Date.now() - began) / 1000).toFixed(1)} s`],
    ];
    return { figures, failures, seed };
  } finally {
    store.close();
    for (const s of servers) {
      if (s.process.exitCode === null && s.process.signalCode === null) {
        s.process.kill('SIGKILL');
        await s.exited;
      }
    }
    await receiver.close();
    dir.cleanup();
  }
}

// ---------------------------------------------------------------------------------------------------
// What a bad request's answer must be

const POINTER = /^(\/([^~/]|~[01])*)*$/;

/** Everything wrong with the answer to a request the contract refuses. */
export function judge(request: FuzzRequest, outcome: RawOutcome): string[] {
  if (outcome.kind !== 'response') {
    if (request.allowNoResponse) return [];
    return [
      outcome.kind === 'closed'
        ? `the server closed the connection without an answer${outcome.error ? ` (${outcome.error})` : ''}`
        : 'no answer within 10 s',
    ];
  }
  const { status, headers, body } = outcome.response;
  if (request.jsonRpc !== undefined) return judgeJsonRpc(request, request.jsonRpc, outcome.response);
  const problems: string[] = [];
  if (status >= 500) problems.push(`a ${status} (server error)`);
  else if (status < 400) problems.push(`accepted (${status}) a request the contract refuses`);
  else if (status !== 429 && !request.expect.includes(status))
    problems.push(`answered ${status}; the contract says ${request.expect.join(' or ')}`);
  problems.push(...problemShape(status, headers, body));
  if (status === 405 && !(headers.allow?.[0] ?? '').trim()) problems.push('a 405 without an Allow header');
  if (status === 429 && headers['retry-after'] === undefined) problems.push('a 429 without Retry-After');
  return problems;
}

/** What an answer shows that is the server's insides, not words for a client: zod's dump, a stack, a path. */
const INTERNALS = /ZodError|"expected":|invalid_type|\n\s+at |node_modules/;

/**
 * Everything wrong with the MCP endpoint's answer to a JSON-RPC message: never a 5xx, problem+json only for what
 * HTTP refuses (a body too large), and each JSON-RPC error one the protocol allows, never an internal one (-32603),
 * with no internals in its words and the request id in its data.
 */
function judgeJsonRpc(request: FuzzRequest, rules: NonNullable<FuzzRequest['jsonRpc']>, response: RawResponse): string[] {
  const { status, headers, body } = response;
  const problems: string[] = [];
  if (status >= 500) problems.push(`a ${status} (server error)`);
  else if (status !== 429 && !request.expect.includes(status))
    problems.push(`answered ${status}; the protocol says ${request.expect.join(' or ')}`);
  if (/^application\/problem\+json/i.test(headers['content-type']?.[0] ?? '')) return [...problems, ...problemShape(status, headers, body)];
  if (!headers['request-id']?.[0]) problems.push('no request-id header');
  if (body.length === 0) return status === 202 ? problems : [...problems, `an empty ${status}`];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return [...problems, `the body is not JSON: ${JSON.stringify(body.toString('utf8').slice(0, 120))}`];
  }
  for (const answer of [parsed].flat() as {
    jsonrpc?: unknown;
    error?: { code?: unknown; message?: unknown; data?: any };
    result?: unknown;
  }[]) {
    if (answer?.jsonrpc !== '2.0') problems.push('not a JSON-RPC 2.0 answer');
    else if (answer.error !== undefined) {
      const { code, message, data } = answer.error;
      if (code === -32603) problems.push(`an internal error (-32603): ${String(message).slice(0, 200)}`);
      else if (!rules.errors.includes(code as number))
        problems.push(`error ${code}; the protocol allows ${rules.errors.join(' or ') || 'a result only'}`);
      if (typeof message !== 'string' || INTERNALS.test(message))
        problems.push(`an error whose words show internals: ${String(message).slice(0, 200)}`);
      if (typeof data?.request_id !== 'string') problems.push(`error ${code} without the request id in its data`);
    } else if (!rules.result) problems.push('a result for a message the protocol refuses');
    else if (INTERNALS.test(JSON.stringify(answer.result)))
      problems.push(`a result whose words show internals: ${JSON.stringify(answer.result).slice(0, 200)}`);
  }
  return problems;
}

/** The RFC 9457 body the contract promises, with the request id of the request-id header. */
function problemShape(status: number, headers: Record<string, string[]>, body: Buffer): string[] {
  if (status < 400) return [];
  const wrong: string[] = [];
  const invalid = (why: string) => wrong.push(`not a valid problem+json: ${why}`);
  const contentType = headers['content-type']?.[0] ?? '';
  if (!/^application\/problem\+json(\s*;|$)/i.test(contentType)) invalid(`Content-Type is ${JSON.stringify(contentType || null)}`);
  const requestIds = headers['request-id'] ?? [];
  if (requestIds.length !== 1 || !requestIds[0]) invalid(`${requestIds.length} request-id header(s)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    invalid(`the body is not JSON: ${JSON.stringify(body.toString('utf8').slice(0, 120))}`);
    return wrong;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    invalid('the body is not an object');
    return wrong;
  }
  const problem = parsed as Record<string, unknown>;
  for (const field of ['type', 'title', 'detail', 'code', 'request_id'] as const) {
    if (typeof problem[field] !== 'string' || problem[field] === '') invalid(`"${field}" is ${JSON.stringify(problem[field] ?? null)}`);
  }
  if (problem.status !== status) invalid(`"status" is ${JSON.stringify(problem.status)}, the HTTP status ${status}`);
  const code = problem.code as string;
  const known = (problemCodes as Record<string, { status: number }>)[code];
  if (typeof code === 'string' && known === undefined) invalid(`code ${JSON.stringify(code)} is not one of the service's codes`);
  else if (known && known.status !== status) invalid(`code ${code} is a ${known.status}, answered as ${status}`);
  if (requestIds[0] && problem.request_id !== requestIds[0])
    invalid(`request_id ${JSON.stringify(problem.request_id)} is not the request-id header ${requestIds[0]}`);
  if (problem.errors !== undefined) {
    if (!Array.isArray(problem.errors)) invalid('"errors" is not an array');
    else {
      for (const item of problem.errors as Record<string, unknown>[]) {
        if (typeof item?.path !== 'string' || !POINTER.test(item.path))
          invalid(`errors[].path ${JSON.stringify(item?.path)} is not a JSON Pointer`);
        if (!['body', 'query', 'path', 'header'].includes(item?.in as string)) invalid(`errors[].in is ${JSON.stringify(item?.in)}`);
        if (typeof item?.message !== 'string') invalid('errors[].message is not a string');
      }
    }
  }
  return wrong;
}

// ---------------------------------------------------------------------------------------------------
// Reporting

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text: UTF-8 when they are, else each byte above 0x7F as \xNN (so invalid UTF-8 shows as it was sent). */
function asText(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return [...bytes]
      .map((byte) => (byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).toUpperCase().padStart(2, '0')}`))
      .join('');
  }
}

/** As a JSON string (so control characters and invalid bytes show), cut at `max` characters with the full length. */
const shown = (bytes: Buffer | string, max: number) => {
  const text = Buffer.isBuffer(bytes) ? asText(bytes) : bytes;
  const escaped = JSON.stringify(text.length > max ? text.slice(0, max) : text).replace(/\\\\x([0-9A-F]{2})/g, '\\x$1');
  return text.length > max ? `${escaped}… (${Buffer.byteLength(text)} bytes)` : escaped;
};
/** The same without the quotes, for a request line or a header value. */
const inline = (text: string, max: number) => {
  const escaped = JSON.stringify(text.length > max ? text.slice(0, max) : text)
    .slice(1, -1)
    .replace(/\\\\x([0-9A-F]{2})/g, '\\x$1');
  return text.length > max ? `${escaped}… (${Buffer.byteLength(text)} bytes)` : escaped;
};

export function describeRequest(request: FuzzRequest): string {
  const lines: string[] = [];
  if (request.requestLine) lines.push(`request line and first header, raw: ${shown(request.requestLine, 300)}`);
  else lines.push(`${inline(request.method, 40)} ${inline(request.target, 300)} ${inline(request.version, 30)}`);
  if (request.noHost) lines.push('(no Host header)');
  for (const [name, value] of request.headers) {
    const text = Buffer.isBuffer(value) ? asText(value) : value;
    const printed = /^authorization$/i.test(name)
      ? text.length > 120
        ? `${text.slice(0, 40)}… (${text.length} chars)`
        : text.replace(/(test|live)_(sk|pk)_[0-9A-Za-z]{20,}/, request.authLabel)
      : text;
    lines.push(`${name}: ${inline(printed, 200)}`);
  }
  if (request.body !== undefined) {
    lines.push(
      `${request.framing === 'as-is' ? '(framing as written above)' : `Content-Length: ${request.body.length}`}${request.halfClose ? ', then the connection half-closed' : ''}`,
    );
    lines.push(`body: ${shown(request.body, 400)}`);
  }
  return lines.join('\n');
}

export function describeOutcome(outcome: RawOutcome): string {
  if (outcome.kind !== 'response')
    return outcome.kind === 'closed'
      ? `connection closed without an answer${outcome.error ? ` (${outcome.error})` : ''}`
      : 'no answer within 10 s';
  const { status, headers, body } = outcome.response;
  const header = (name: string) => (headers[name] ? `${name}: ${headers[name]!.join(', ')}` : `(no ${name})`);
  return [
    `${status}; ${header('content-type')}; ${header('request-id')}${status === 405 ? `; ${header('allow')}` : ''}`,
    `body: ${shown(body, 600)}`,
  ].join('\n');
}

function summarizeLogLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: string; reqId?: string; err?: { type?: string; message?: string } };
    return `${entry.msg ?? ''}${entry.err ? `: ${entry.err.type ?? 'Error'}: ${entry.err.message ?? ''}` : ''}${entry.reqId ? ` (${entry.reqId})` : ''}`;
  } catch {
    return line.slice(0, 300);
  }
}

export function formatFuzzReport(report: FuzzReport): string {
  const width = Math.max(...report.figures.map(([name]) => name.length));
  const lines = ['fuzz suite figures:', ...report.figures.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)];
  if (report.failures.length > 0) {
    lines.push(
      '',
      `fuzz suite found ${report.failures.length} failing propert${report.failures.length === 1 ? 'y' : 'ies'}, each shrunk to its smallest failing request:`,
    );
    const groups = new Map<string, FuzzFailure[]>();
    for (const failure of report.failures) {
      const key = `${failure.category} — ${failure.problems[0]!.replace(/req_[0-9A-Z]+/g, 'req_…')
        .replace(/\d+ bytes/g, 'N bytes')
        .slice(0, 140)}`;
      groups.set(key, [...(groups.get(key) ?? []), failure]);
    }
    lines.push('summary (by category and first problem):');
    for (const [key, list] of groups) lines.push(`  - ${key}: ${list.map((f) => `${f.route} (${f.variant})`).join(', ')}`);
    for (const [i, failure] of report.failures.entries()) {
      lines.push('', `#${i + 1} [${failure.category}] ${failure.route}: ${failure.variant} (after ${failure.shrinks} shrinks)`);
      lines.push(...failure.problems.map((p) => `  problem: ${p}`));
      lines.push(...failure.request.split('\n').map((line) => `  > ${line}`));
      lines.push(...failure.response.split('\n').map((line) => `  < ${line}`));
    }
    lines.push('', `replay one: npm run fuzz -- --seed ${report.seed} --only "<category> <route>"`);
  }
  return lines.join('\n');
}
