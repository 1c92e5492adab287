import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CareersIndex, indexCatalogue } from '../../src/careers/careers-index.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { countsOf } from '../../src/domain/usage.js';
import { fingerprintOf } from '../../src/http/idempotency.js';
import { client } from '../support/api-client.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';
import { eventually } from '../support/eventually.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = Record<string, any>;
interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}
type Case = () => Promise<Answer>;

const BASE = 'https://nature.test/openapi.json';
/** Statuses no request can bring about on demand: a fault of ours, and the drain while shutting down. */
const UNTRIGGERABLE = new Set(['500', '503']);
const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Every operation of the served document, every status it documents, against real answers of the server:
 * bodies validated with the document's own schemas (ajv, JSON Schema 2020-12), content types and headers
 * as documented. An operation or a status without a case here fails the test.
 */
describe('the OpenAPI document matches what the server answers', () => {
  let t: TestApp;
  let limited: TestApp;
  let doc: Json;
  let ajv: Ajv2020;
  let port: number;
  const keys: Record<'sk' | 'read' | 'write' | 'live' | 'limited', string> = { sk: '', read: '', write: '', live: '', limited: '' };
  const ids: Record<string, string> = {};

  const inject = (
    app: TestApp,
    method: string,
    url: string,
    key: string | undefined,
    extra: { headers?: Record<string, string>; payload?: unknown } = {},
  ) =>
    app.app
      .inject({
        method: method as 'GET',
        url,
        headers: { ...(key && auth(key)), ...extra.headers },
        ...(extra.payload !== undefined && { payload: extra.payload as string }),
      })
      .then((response): Answer => ({ status: response.statusCode, headers: response.headers, body: response.body }));
  const call =
    (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    () =>
      inject(t, method, url, keys.sk, { payload, headers });

  /** A request with no Host header, which only a raw socket can send. */
  const withoutHost = (method: string, url: string) => (): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        const [head = '', ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
      });
      socket.write(`${method} ${url} HTTP/1.1\r\nAuthorization: Bearer ${keys.sk}\r\nConnection: close\r\n\r\n`);
    });

  // Served from the start; the 503 case takes it away for one request.
  let careers: CareersIndex | undefined = indexCatalogue(smallCatalogue());

  beforeAll(async () => {
    // Hundreds of requests in a burst with one key: 429 is the `limited` app's case, never this one's.
    const unlimited = { NATURE_RATE_LIMIT_PER_SECOND: '1000000', NATURE_RATE_LIMIT_BURST: '1000000' };
    t = await openTestApp(unlimited, { careers: { current: () => careers } });
    limited = await openTestApp({ NATURE_RATE_LIMIT_PER_SECOND: '1', NATURE_RATE_LIMIT_BURST: '30' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    keys.sk = (await t.mint('test', 'sk', ['careers:read', 'nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
    keys.read = (await t.mint('test', 'sk', ['nature:read'])).raw;
    keys.write = (await t.mint('test', 'sk', ['nature:write'])).raw;
    keys.live = (await t.mint('live', 'sk')).raw;
    keys.limited = (await limited.mint('test', 'sk')).raw;
    doc = JSON.parse((await t.app.inject({ url: '/v1/openapi.json' })).body) as Json;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, BASE);

    const api = client(t, keys.sk);
    const completed = await api.completeAssessment();
    ids.subject = completed.subjectId;
    ids.completedAssessment = completed.assessmentId;
    ids.profile = (await api.profileOf(completed.subjectId)).id;
    ids.event = await eventually(async () => (await api.call('GET', '/v1/nature/events')).body.data[0]?.id as string | undefined);
    const erased = await api.completeAssessment();
    ids.erasedProfile = (await api.profileOf(erased.subjectId)).id;
    ids.erasedEvent = await eventually(async () => {
      const events = (await api.call('GET', '/v1/nature/events')).body.data as Json[];
      return events.find((event) => event.data.subject_id === erased.subjectId)?.id as string | undefined;
    });
    ids.erasedAssessment = erased.assessmentId;
    const situation = 'Planning a team meeting and explaining the new schedule to everyone.';
    ids.situational = (
      await api.call('POST', '/v1/situational/assessments', { subject_id: ids.subject, situation_context: situation })
    ).body.id;
    ids.erasedSituational = (
      await api.call('POST', '/v1/situational/assessments', { subject_id: erased.subjectId, situation_context: situation })
    ).body.id;
    ids.erased = erased.subjectId;
    ids.link = (await api.call('POST', `/v1/nature/subjects/${ids.subject}/assessment_links`)).body.id;
    ids.erasedLink = (await api.call('POST', `/v1/nature/subjects/${erased.subjectId}/assessment_links`)).body.id;
    ids.open = (await api.call('POST', '/v1/nature/subjects', validSubject())).body.id;
    ids.openAssessment = (await api.call('POST', `/v1/nature/subjects/${ids.open}/assessments`)).body.id;
    ids.endpoint = (await api.register('http://127.0.0.1:9/hook')).id;
    // An answer stored under an Idempotency-Key, whose subject is then erased: its replay answers 410.
    ids.replayKey = 'conformance-replay';
    ids.replayBody = JSON.stringify(validSubject());
    const replayed = await inject(t, 'POST', '/v1/nature/subjects', keys.sk, {
      payload: ids.replayBody,
      headers: { 'idempotency-key': ids.replayKey, 'content-type': 'application/json' },
    });
    await api.call('DELETE', `/v1/nature/subjects/${JSON.parse(replayed.body).id}`);
    await api.call('DELETE', `/v1/nature/subjects/${ids.erased}`);
  });
  afterAll(async () => {
    await t?.close();
    await limited?.close();
  });

  const unknown = {
    sub: 'sub_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ',
    asm: 'asm_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ',
    prf: 'prf_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ',
    evt: 'evt_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ',
    whe: 'whe_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ',
    lnk: 'lnk_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ',
  };
  const subjectPaths = (subject: string, assessment: string) => ({
    assessments: `/v1/nature/subjects/${subject}/assessments`,
    assessment: `/v1/nature/subjects/${subject}/assessments/${assessment}`,
  });
  const oneAnswer = { responses: [{ item_id: 'mn_001', value: 4 }] };

  /**
   * Production past a hard cap (issue 46): the plan capped at starter's 1000 and a month of 1000 completions counted, then
   * `path` started with the live key once the server applies the plan (within its 2 s refresh).
   */
  const pastHardCap = (path: (subject: string) => string) => async () => {
    await t.accounts.setPlan({
      account_id: ACCOUNT_ID,
      plan: 'starter',
      hard_cap: true,
      set_at: new Date().toISOString(),
      set_by: { type: 'operator' },
    });
    const positions = Array.from({ length: 1000 }, (_, i) => BigInt(i + 1));
    const writes = countsOf(new Date(), 'key_01CAPPED000000000000000000').map((row) => ({ collection: 'usage', ...row, positions }));
    await t.envs.live.readModels.commit('conformance-seeded-usage', 1n, writes);
    const subject = JSON.parse(
      (
        await inject(t, 'POST', '/v1/nature/subjects', keys.live, {
          payload: JSON.stringify(validSubject()),
          headers: { 'content-type': 'application/json' },
        })
      ).body,
    ).id as string;
    return eventually(async () => {
      const answer = await inject(t, 'POST', path(subject), keys.live);
      return answer.status === 402 ? answer : undefined;
    });
  };

  /** The cases particular to each operation; the generic ones (400, 401, 403, 405, 409, 413, 415, 422, 429) follow from its method. */
  const specific = (): Record<string, Record<string, Case>> => ({
    createSubject: {
      201: call('POST', '/v1/nature/subjects', validSubject()),
      409: async () => {
        const subject = validSubject();
        await call('POST', '/v1/nature/subjects', subject)();
        return call('POST', '/v1/nature/subjects', subject)();
      },
      410: () =>
        inject(t, 'POST', '/v1/nature/subjects', keys.sk, {
          payload: ids.replayBody,
          headers: { 'idempotency-key': ids.replayKey!, 'content-type': 'application/json' },
        }),
    },
    listSubjects: {
      200: call('GET', '/v1/nature/subjects?limit=2'),
      400: call('GET', `/v1/nature/subjects?starting_after=${unknown.sub}`),
    },
    getSubject: {
      200: call('GET', `/v1/nature/subjects/${ids.subject}`),
      404: call('GET', `/v1/nature/subjects/${unknown.sub}`),
      410: call('GET', `/v1/nature/subjects/${ids.erased}`),
    },
    eraseSubject: {
      200: async () =>
        call('DELETE', `/v1/nature/subjects/${JSON.parse((await call('POST', '/v1/nature/subjects', validSubject())()).body).id}`)(),
      404: call('DELETE', `/v1/nature/subjects/${unknown.sub}`),
      410: call('DELETE', `/v1/nature/subjects/${ids.erased}`),
    },
    listAuditEntries: {
      200: call('GET', `/v1/nature/subjects/${ids.erased}/audit?limit=100`),
      404: call('GET', `/v1/nature/subjects/${unknown.sub}/audit`),
    },
    listItems: { 200: call('GET', '/v1/nature/items') },
    startAssessment: {
      201: async () =>
        call('POST', subjectPaths(JSON.parse((await call('POST', '/v1/nature/subjects', validSubject())()).body).id, '').assessments)(),
      404: call('POST', subjectPaths(unknown.sub, '').assessments, { language: 'fr' }),
      402: pastHardCap((subject) => subjectPaths(subject, '').assessments),
      409: call('POST', subjectPaths(ids.open!, '').assessments),
      410: call('POST', subjectPaths(ids.erased!, '').assessments),
    },
    listAssessments: {
      200: call('GET', subjectPaths(ids.subject!, '').assessments),
      404: call('GET', subjectPaths(unknown.sub, '').assessments),
      410: call('GET', subjectPaths(ids.erased!, '').assessments),
    },
    getAssessment: {
      200: call('GET', subjectPaths(ids.subject!, ids.completedAssessment!).assessment),
      404: call('GET', subjectPaths(ids.subject!, unknown.asm).assessment),
      410: call('GET', subjectPaths(ids.erased!, ids.erasedAssessment!).assessment),
    },
    submitResponses: {
      200: call('PATCH', subjectPaths(ids.open!, ids.openAssessment!).assessment, oneAnswer),
      404: call('PATCH', subjectPaths(ids.subject!, unknown.asm).assessment, oneAnswer),
      409: call('PATCH', subjectPaths(ids.subject!, ids.completedAssessment!).assessment, oneAnswer),
      410: call('PATCH', subjectPaths(ids.erased!, ids.erasedAssessment!).assessment, oneAnswer),
    },
    abandonAssessment: {
      200: async () => {
        const subject = JSON.parse((await call('POST', '/v1/nature/subjects', validSubject())()).body).id as string;
        const assessment = JSON.parse((await call('POST', subjectPaths(subject, '').assessments)()).body).id as string;
        return call('DELETE', subjectPaths(subject, assessment).assessment)();
      },
      404: call('DELETE', subjectPaths(ids.subject!, unknown.asm).assessment),
      409: call('DELETE', subjectPaths(ids.subject!, ids.completedAssessment!).assessment),
      410: call('DELETE', subjectPaths(ids.erased!, ids.erasedAssessment!).assessment),
    },
    getLatestProfile: {
      200: call('GET', `/v1/nature/subjects/${ids.subject}/profile`),
      404: call('GET', `/v1/nature/subjects/${ids.open}/profile`),
      410: call('GET', `/v1/nature/subjects/${ids.erased}/profile`),
    },
    createAssessmentLink: {
      201: call('POST', `/v1/nature/subjects/${ids.subject}/assessment_links`, { language: 'fr', expires_in_seconds: 3600 }),
      402: pastHardCap((subject) => `/v1/nature/subjects/${subject}/assessment_links`),
      404: call('POST', `/v1/nature/subjects/${unknown.sub}/assessment_links`),
      410: call('POST', `/v1/nature/subjects/${ids.erased}/assessment_links`),
    },
    listAssessmentLinks: {
      200: call('GET', `/v1/nature/subjects/${ids.subject}/assessment_links`),
      400: call('GET', `/v1/nature/subjects/${ids.subject}/assessment_links?starting_after=${unknown.lnk}`),
      404: call('GET', `/v1/nature/subjects/${unknown.sub}/assessment_links`),
      410: call('GET', `/v1/nature/subjects/${ids.erased}/assessment_links`),
    },
    getAssessmentLink: {
      200: call('GET', `/v1/nature/assessment_links/${ids.link}`),
      404: call('GET', `/v1/nature/assessment_links/${unknown.lnk}`),
      410: call('GET', `/v1/nature/assessment_links/${ids.erasedLink}`),
    },
    revokeAssessmentLink: {
      200: call('POST', `/v1/nature/assessment_links/${ids.link}/revoke`),
      404: call('POST', `/v1/nature/assessment_links/${unknown.lnk}/revoke`),
      410: call('POST', `/v1/nature/assessment_links/${ids.erasedLink}/revoke`),
    },
    getProfile: {
      200: call('GET', `/v1/nature/profiles/${ids.profile}`),
      404: call('GET', `/v1/nature/profiles/${unknown.prf}`),
      410: call('GET', `/v1/nature/profiles/${ids.erasedProfile}`),
    },
    getProfileChart: {
      200: call('GET', `/v1/nature/profiles/${ids.profile}/chart.svg?theme=dark&width=320`),
      304: async () => {
        const { etag } = (await call('GET', `/v1/nature/profiles/${ids.profile}/chart.svg`)()).headers;
        return call('GET', `/v1/nature/profiles/${ids.profile}/chart.svg`, undefined, { 'if-none-match': String(etag) })();
      },
      404: call('GET', `/v1/nature/profiles/${unknown.prf}/chart.svg`),
      410: call('GET', `/v1/nature/profiles/${ids.erasedProfile}/chart.svg`),
    },
    listEvents: { 200: call('GET', '/v1/nature/events') },
    getEvent: { 200: call('GET', `/v1/nature/events/${ids.event}`), 404: call('GET', `/v1/nature/events/${unknown.evt}`) },
    redeliverEvent: {
      202: call('POST', `/v1/nature/events/${ids.event}/redeliver`),
      404: call('POST', `/v1/nature/events/${unknown.evt}/redeliver`),
      410: call('POST', `/v1/nature/events/${ids.erasedEvent}/redeliver`),
    },
    getUsage: { 200: call('GET', '/v1/nature/usage?granularity=month') },
    createWebhookEndpoint: {
      201: call('POST', '/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/created' }),
      409: async () => {
        const payload = { url: 'http://127.0.0.1:9/held', enabled_events: ['nature.assessment.completed'], description: null };
        const url = '/v1/nature/webhook_endpoints';
        await t.envs.test.idempotency.claim({
          key: 'held-create',
          fingerprint: fingerprintOf('POST', url, payload),
          now: new Date(),
          leaseMs: 30_000,
          ttlMs: 60_000,
        });
        return call('POST', url, payload, { 'idempotency-key': 'held-create' })();
      },
    },
    listWebhookEndpoints: { 200: call('GET', '/v1/nature/webhook_endpoints') },
    getWebhookEndpoint: {
      200: call('GET', `/v1/nature/webhook_endpoints/${ids.endpoint}`),
      404: call('GET', `/v1/nature/webhook_endpoints/${unknown.whe}`),
    },
    updateWebhookEndpoint: {
      200: call('PATCH', `/v1/nature/webhook_endpoints/${ids.endpoint}`, { description: 'updated' }),
      404: call('PATCH', `/v1/nature/webhook_endpoints/${unknown.whe}`, { description: 'updated' }),
    },
    rotateWebhookEndpointSecret: {
      200: call('POST', `/v1/nature/webhook_endpoints/${ids.endpoint}/rotate_secret`, { expire_previous_in: 60 }),
      404: call('POST', `/v1/nature/webhook_endpoints/${unknown.whe}/rotate_secret`),
    },
    sendTestWebhookEvent: {
      202: call('POST', `/v1/nature/webhook_endpoints/${ids.endpoint}/test`),
      403: () => inject(t, 'POST', `/v1/nature/webhook_endpoints/${unknown.whe}/test`, keys.live),
      404: call('POST', `/v1/nature/webhook_endpoints/${unknown.whe}/test`),
    },
    deleteWebhookEndpoint: {
      200: async () =>
        call(
          'DELETE',
          `/v1/nature/webhook_endpoints/${JSON.parse((await call('POST', '/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/gone' })()).body).id}`,
        )(),
      404: call('DELETE', `/v1/nature/webhook_endpoints/${unknown.whe}`),
    },
    listCareers: {
      200: call('GET', '/v1/careers?query=nurse&job_zone=3&limit=1'),
      400: call('GET', '/v1/careers?starting_after=car_nowhere'),
    },
    getCareer: { 200: call('GET', '/v1/careers/car_rn'), 404: call('GET', '/v1/careers/car_nowhere') },
    matchCareers: {
      200: call('POST', '/v1/careers/matches', { profile_id: ids.profile, job_zone: [3, 4], limit: 2 }),
      404: call('POST', '/v1/careers/matches', { profile_id: unknown.prf }),
      409: async () => {
        // As validated (the fingerprint's), with limit's default.
        const payload = { profile: profileOf(0.5), limit: 20 };
        await t.envs.test.idempotency.claim({
          key: 'held-match',
          fingerprint: fingerprintOf('POST', '/v1/careers/matches', payload),
          now: new Date(),
          leaseMs: 30_000,
          ttlMs: 60_000,
        });
        return call('POST', '/v1/careers/matches', payload, { 'idempotency-key': 'held-match' })();
      },
      410: call('POST', '/v1/careers/matches', { profile_id: ids.erasedProfile }),
    },
    createSituationalAssessment: {
      202: call('POST', '/v1/situational/assessments', {
        subject_id: ids.subject,
        situation_context: 'Tuning a piano by ear before a concert.',
      }),
      404: call('POST', '/v1/situational/assessments', {
        subject_id: unknown.sub,
        situation_context: 'Tuning a piano by ear before a concert.',
      }),
      409: call('POST', '/v1/situational/assessments', {
        subject_id: ids.open,
        situation_context: 'Tuning a piano by ear before a concert.',
      }),
      410: call('POST', '/v1/situational/assessments', {
        subject_id: ids.erased,
        situation_context: 'Tuning a piano by ear before a concert.',
      }),
    },
    getSituationalAssessment: {
      200: call('GET', `/v1/situational/assessments/${ids.situational}`),
      404: call('GET', '/v1/situational/assessments/sit_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ'),
      410: call('GET', `/v1/situational/assessments/${ids.erasedSituational}`),
    },
    listSituationalAssessments: {
      200: call('GET', `/v1/situational/assessments?subject_id=${ids.subject}`),
      400: call('GET', '/v1/situational/assessments?starting_after=sit_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ'),
      404: call('GET', `/v1/situational/assessments?subject_id=${unknown.sub}`),
      410: call('GET', `/v1/situational/assessments?subject_id=${ids.erased}`),
    },
    replayFailedWebhookDeliveries: {
      202: call('POST', `/v1/nature/webhook_endpoints/${ids.endpoint}/replay_failed`, { since: '2026-11-01T00:00:00Z' }),
      404: call('POST', `/v1/nature/webhook_endpoints/${unknown.whe}/replay_failed`, { since: '2026-11-01T00:00:00Z' }),
      409: async () => {
        // As validated (the fingerprint's): the timestamp to the millisecond.
        const payload = { since: '2026-11-01T00:00:00.000Z' };
        const url = `/v1/nature/webhook_endpoints/${ids.endpoint}/replay_failed`;
        await t.envs.test.idempotency.claim({
          key: 'held-replay',
          fingerprint: fingerprintOf('POST', url, payload),
          now: new Date(),
          leaseMs: 30_000,
          ttlMs: 60_000,
        });
        return call('POST', url, payload, { 'idempotency-key': 'held-replay' })();
      },
    },
    listWebhookDeliveries: {
      200: call('GET', `/v1/nature/webhook_endpoints/${ids.endpoint}/deliveries`),
      404: call('GET', `/v1/nature/webhook_endpoints/${unknown.whe}/deliveries`),
    },
  });

  /** The path with ids that exist (or at least look right) filled in. */
  const concrete = (path: string) =>
    path
      .replace('/careers/{id}', '/careers/car_rn')
      .replace('/situational/assessments/{id}', `/situational/assessments/${ids.situational}`)
      .replace('{assessment_id}', ids.openAssessment!)
      .replace(/\/(subjects|profiles|events|webhook_endpoints|assessment_links)\/\{id\}/, (_match, kind: string) => {
        const id = {
          subjects: ids.open,
          profiles: ids.profile,
          events: ids.event,
          webhook_endpoints: ids.endpoint,
          assessment_links: ids.link,
        }[kind];
        return `/${kind}/${id}`;
      });

  /** Cases every operation has, from its method. */
  const generic = (method: string, path: string, own: Record<string, Case>): Record<string, Case> => {
    const url = concrete(path);
    const upper = method.toUpperCase();
    const hasBody = method !== 'get';
    const bodyCase = (payload: string, headers: Record<string, string>) => () => inject(t, upper, url, keys.sk, { payload, headers });
    const cases: Record<string, Case> = {
      400: withoutHost(upper, url),
      401: () => inject(t, upper, url, undefined),
      403: () => inject(t, upper, url, method === 'get' ? keys.write : keys.read),
      405: () => inject(t, 'PUT', url, keys.sk),
      415: hasBody
        ? bodyCase('{}', { 'content-type': 'text/plain' })
        : () => inject(t, upper, url, keys.sk, { headers: { 'content-encoding': 'gzip' } }),
      422: () => inject(t, upper, `${url}${url.includes('?') ? '&' : '?'}unknown_parameter=1`, keys.sk),
      429: async () => {
        for (let spent = 0; spent < 30; spent++) await inject(limited, 'GET', '/v1/nature/items', keys.limited);
        return inject(limited, upper, url, keys.limited);
      },
    };
    if (hasBody) cases[413] = bodyCase(JSON.stringify({ padding: 'x'.repeat(70 * 1024) }), { 'content-type': 'application/json' });
    if (method === 'post' || method === 'patch') {
      // A claim held by a request still running, made in the store itself: the same request meets it.
      cases[409] = async () => {
        const key = `held-${Math.random()}`;
        const payload = method === 'patch' ? (path.includes('webhook_endpoints') ? { description: 'held' } : oneAnswer) : undefined;
        await t.envs.test.idempotency.claim({
          key,
          fingerprint: fingerprintOf(upper, url, payload ?? null),
          now: new Date(),
          leaseMs: 30_000,
          ttlMs: 60_000,
        });
        const headers = { 'idempotency-key': key, ...(payload && { 'content-type': 'application/json' }) };
        return inject(t, upper, url, keys.sk, { headers, ...(payload && { payload: JSON.stringify(payload) }) });
      };
    }
    return { ...cases, ...own };
  };

  function check(answer: Answer, response: Json, where: string): void {
    const resolved = (value: Json, kind: string) => (value.$ref ? doc.components[kind][value.$ref.split('/').at(-1)] : value) as Json;
    const documented = resolved(response, 'responses');
    const type = String(answer.headers['content-type'] ?? '').split(';')[0]!;
    const content = documented.content as Json | undefined;
    if (content) {
      expect(Object.keys(content), `${where}: content type`).toContain(type);
      const ref = response.$ref ? `${response.$ref}/content/${pointer(type)}/schema` : `${where}/content/${pointer(type)}/schema`;
      const validate = ajv.getSchema(`${BASE}${ref}`) ?? ajv.compile({ $ref: `${BASE}${ref}` });
      // JSON bodies are parsed; the chart's SVG is checked as the string its schema says it is.
      const body = type.endsWith('json') ? (JSON.parse(answer.body) as unknown) : answer.body;
      expect(validate(body) ? [] : validate.errors, `${where}: body ${answer.body.slice(0, 300)}`).toEqual([]);
    }
    for (const [name, header] of Object.entries((documented.headers ?? {}) as Json)) {
      const definition = resolved(header, 'headers');
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        expect(definition.required, `${where}: header ${name} is required`).not.toBe(true);
        continue;
      }
      const typed = definition.schema.type === 'integer' ? Number(value) : value;
      expect(ajv.validate(definition.schema, typed), `${where}: header ${name}: ${String(value)}`).toBe(true);
    }
  }

  it('covers every operation and every documented status with a real answer', async () => {
    const own = specific();
    const operations: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        const id = operation.operationId as string;
        operations.push(id);
        const cases = generic(method, path, own[id] ?? {});
        expect(own[id], `${id} (${method.toUpperCase()} ${path}) has no cases`).toBeDefined();
        for (const status of Object.keys(operation.responses)) {
          if (UNTRIGGERABLE.has(status)) continue;
          const run = cases[status];
          expect(run, `${id}: no case for ${status}`).toBeDefined();
          const answer = await run!();
          expect(answer.status, `${id}: case for ${status} answered ${answer.status} ${answer.body.slice(0, 300)}`).toBe(Number(status));
          check(answer, operation.responses[status], `#/paths/${pointer(path)}/${method}/responses/${status}`);
        }
      }
    }
    expect(operations.length).toBeGreaterThan(20);
  });

  it("documents a browser's answers (a pk key with an assessment's client secret) and offers that security on exactly the browser's operations", async () => {
    const pk = (await t.mint('test', 'pk', ['nature:read'])).raw;
    const subject = JSON.parse((await call('POST', '/v1/nature/subjects', validSubject())()).body).id as string;
    const startPath = '/v1/nature/subjects/{id}/assessments';
    const started = await call('POST', `/v1/nature/subjects/${subject}/assessments`)();
    check(started, doc.paths[startPath].post.responses['201'], `#/paths/${pointer(startPath)}/post/responses/201`);
    const { id, client_secret } = JSON.parse(started.body) as Json;
    const path = '/v1/nature/subjects/{id}/assessments/{assessment_id}';
    const url = `/v1/nature/subjects/${subject}/assessments/${id}`;
    const asBrowser = (method: string, secret: string, payload?: unknown) =>
      inject(t, method, url, pk, {
        headers: { 'nature-client-secret': secret, ...(payload !== undefined && { 'content-type': 'application/json' }) },
        ...(payload !== undefined && { payload: JSON.stringify(payload) }),
      });
    for (const [method, payload] of [
      ['get', undefined],
      ['patch', { responses: [{ item_id: 'mn_001', value: 4 }] }],
    ] as const) {
      const answered = await asBrowser(method.toUpperCase(), client_secret, payload);
      expect(answered.status, answered.body).toBe(200);
      check(answered, doc.paths[path][method].responses['200'], `#/paths/${pointer(path)}/${method}/responses/200`);
      const refused = await asBrowser(method.toUpperCase(), `${id}_secret_${'0'.repeat(40)}`, payload);
      expect(refused.status).toBe(401);
      check(refused, doc.paths[path][method].responses['401'], `#/paths/${pointer(path)}/${method}/responses/401`);
    }
    expect(doc.components.securitySchemes.clientSecret).toMatchObject({ type: 'apiKey', in: 'header', name: 'Nature-Client-Secret' });
    const withSecret = Object.entries(doc.paths as Json).flatMap(([route, item]) =>
      Object.values(item as Json).flatMap((operation: Json) =>
        ((operation.security ?? []) as Json[]).some((option) => 'clientSecret' in option) ? [`${operation.operationId} ${route}`] : [],
      ),
    );
    expect(withSecret.sort()).toEqual([
      `getAssessment ${path}`,
      'getLatestProfile /v1/nature/subjects/{id}/profile',
      'getProfile /v1/nature/profiles/{id}',
      'getProfileChart /v1/nature/profiles/{id}/chart.svg',
      `submitResponses ${path}`,
    ]);
  });

  it("documents the careers routes' 503 before a catalogue is imported, without Retry-After", async () => {
    const served = careers;
    careers = undefined;
    try {
      for (const [path, method, payload] of [
        ['/v1/careers', 'get', undefined],
        ['/v1/careers/{id}', 'get', undefined],
        ['/v1/careers/matches', 'post', { profile: profileOf(0.5) }],
      ] as const) {
        const answer = await call(method.toUpperCase(), concrete(path), payload)();
        expect(answer.status, answer.body).toBe(503);
        expect(JSON.parse(answer.body).code).toBe('careers_catalogue_missing');
        check(answer, doc.paths[path][method].responses['503'], `#/paths/${pointer(path)}/${method}/responses/503`);
      }
    } finally {
      careers = served;
    }
  });

  it('documents a replayed write with idempotent-replayed, as the server sends it', async () => {
    const headers = { 'idempotency-key': `replay-${Math.random()}`, 'content-type': 'application/json' };
    const payload = JSON.stringify(validSubject());
    await inject(t, 'POST', '/v1/nature/subjects', keys.sk, { payload, headers });
    const replay = await inject(t, 'POST', '/v1/nature/subjects', keys.sk, { payload, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    check(replay, doc.paths['/v1/nature/subjects'].post.responses['201'], '#/paths/~1v1~1nature~1subjects/post/responses/201');
  });
});
