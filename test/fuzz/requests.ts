import fc from 'fast-check';
import { applyEdit, deeplyNested, type Edit, type JsonNode, type JsonPath, rawString, serialize, toNode } from './json-text.js';

/**
 * The fuzz suite's requests: every route of the API, a valid request for each (with fresh values, so
 * it would succeed), and per category of defect an arbitrary that spoils it in a way the contract says
 * must be refused. Arbitraries produce plans (functions of the live context), so that a shrunk case
 * replayed after the stores were repaired hits the same kind of resource again.
 */

/** The resources and keys a run works on; `refs` may be replaced when a defect let a request change them. */
export interface FuzzContext {
  keys: Record<KeyName, string>;
  refs: Record<RefName, string>;
  receiverUrl: string;
  /** A value never used before in this run. */
  fresh(): string;
}

export type KeyName = 'rw' | 'readOnly' | 'writeOnly' | 'pk' | 'live' | 'revoked' | 'rotated';
export type RefName =
  | 'subjOpen'
  | 'asmOpen'
  | 'subjDone'
  | 'asmDone'
  | 'prfDone'
  | 'evtDone'
  | 'subjVictim'
  | 'subjErased'
  | 'whe'
  | 'wheVictim'
  | 'subjLive'
  | 'asmLive'
  | 'prfLive'
  | 'evtLive';

/** One request exactly as it goes on the wire, with what the contract allows as an answer. */
export interface FuzzRequest {
  method: string;
  target: string;
  /** The request line's version token; HTTP/1.1 unless the defect is there. */
  version: string;
  /** Written in order after Host (unless `noHost`); Content-Length is added for a body unless `framing` says otherwise. */
  headers: [string, string | Buffer][];
  body?: Buffer;
  /** `length`: Content-Length of the body (the default); `as-is`: the headers already frame it (or break the framing). */
  framing?: 'length' | 'as-is';
  noHost?: boolean;
  /** A whole request line written instead of `method target version`. */
  requestLine?: Buffer;
  /** Half-close after writing (a truncated body: the server sees the stream end). */
  halfClose?: boolean;
  /** The server may close without answering (it cannot answer a request that never arrived in full). */
  allowNoResponse?: boolean;
  /** Statuses the contract allows for this defect; 429 (rate_limited) is always allowed too. */
  expect: number[];
  /** Which defect of its category it has (a field, a key kind, a header case): failures are told apart by it. */
  variant: string;
  /** How the report names the credentials, instead of printing a key. */
  authLabel: string;
  /** A JSON-RPC message (/v1/mcp): the error codes the protocol allows in its answer, and whether a result may come. */
  jsonRpc?: { errors: number[]; result?: boolean };
}

export type Plan = (ctx: FuzzContext) => FuzzRequest;

export function toBytes(request: FuzzRequest): Buffer {
  const line = request.requestLine ?? Buffer.from(`${request.method} ${request.target} ${request.version}`, 'latin1');
  const parts: Buffer[] = [line, Buffer.from('\r\n')];
  const header = (name: string, value: string | Buffer) =>
    parts.push(Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8'), Buffer.from('\r\n'));
  if (!request.noHost) header('Host', '127.0.0.1');
  for (const [name, value] of request.headers) header(name, value);
  if (request.body !== undefined && (request.framing ?? 'length') === 'length') header('Content-Length', String(request.body.length));
  header('Connection', 'close');
  parts.push(Buffer.from('\r\n'));
  if (request.body !== undefined) parts.push(request.body);
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------------
// Routes

type Segment = string | { ref: RefName; kind: IdKind };
type IdKind = 'subject' | 'assessment' | 'profile' | 'endpoint' | 'event';
export type BodyKind = 'subject' | 'start' | 'responses' | 'endpoint' | 'endpointUpdate' | 'rotation';

export interface Route {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: Segment[];
  body?: BodyKind;
  /** Query parameters the route takes (besides none). */
  query?: string[];
  /** Valid query parameters a list route is called with by default. */
  list?: boolean;
  /** Publishable (pk) keys may call it. */
  publishable?: boolean;
}

const n = (...rest: Segment[]): Segment[] => ['v1', 'nature', ...rest];
const S = (ref: RefName = 'subjOpen'): Segment => ({ ref, kind: 'subject' });
const LIST = ['limit', 'starting_after', 'ending_before'];

/** Every route of the API (the public ones are in `publicPaths`). */
export const routes: Route[] = [
  { id: 'POST /subjects', method: 'POST', path: n('subjects'), body: 'subject' },
  { id: 'GET /subjects', method: 'GET', path: n('subjects'), query: [...LIST, 'external_subject_id'], list: true },
  { id: 'GET /subjects/{id}', method: 'GET', path: n('subjects', S()) },
  { id: 'DELETE /subjects/{id}', method: 'DELETE', path: n('subjects', S('subjVictim')) },
  { id: 'GET /subjects/{id}/audit', method: 'GET', path: n('subjects', S(), 'audit'), query: LIST, list: true },
  { id: 'POST /subjects/{id}/assessments', method: 'POST', path: n('subjects', S('subjDone'), 'assessments'), body: 'start' },
  { id: 'GET /subjects/{id}/assessments', method: 'GET', path: n('subjects', S(), 'assessments'), query: LIST, list: true },
  {
    id: 'GET /subjects/{id}/assessments/{aid}',
    method: 'GET',
    path: n('subjects', S(), 'assessments', { ref: 'asmOpen', kind: 'assessment' }),
  },
  {
    id: 'PATCH /subjects/{id}/assessments/{aid}',
    method: 'PATCH',
    path: n('subjects', S(), 'assessments', { ref: 'asmOpen', kind: 'assessment' }),
    body: 'responses',
  },
  {
    id: 'DELETE /subjects/{id}/assessments/{aid}',
    method: 'DELETE',
    path: n('subjects', S(), 'assessments', { ref: 'asmOpen', kind: 'assessment' }),
  },
  { id: 'GET /subjects/{id}/profile', method: 'GET', path: n('subjects', S('subjDone'), 'profile') },
  { id: 'GET /profiles/{id}', method: 'GET', path: n('profiles', { ref: 'prfDone', kind: 'profile' }) },
  {
    id: 'GET /profiles/{id}/chart.svg',
    method: 'GET',
    path: n('profiles', { ref: 'prfDone', kind: 'profile' }, 'chart.svg'),
    query: ['theme', 'width'],
  },
  { id: 'GET /items', method: 'GET', path: n('items'), publishable: true },
  { id: 'POST /webhook_endpoints', method: 'POST', path: n('webhook_endpoints'), body: 'endpoint' },
  { id: 'GET /webhook_endpoints', method: 'GET', path: n('webhook_endpoints'), query: LIST, list: true },
  { id: 'GET /webhook_endpoints/{id}', method: 'GET', path: n('webhook_endpoints', { ref: 'whe', kind: 'endpoint' }) },
  {
    id: 'PATCH /webhook_endpoints/{id}',
    method: 'PATCH',
    path: n('webhook_endpoints', { ref: 'whe', kind: 'endpoint' }),
    body: 'endpointUpdate',
  },
  { id: 'DELETE /webhook_endpoints/{id}', method: 'DELETE', path: n('webhook_endpoints', { ref: 'wheVictim', kind: 'endpoint' }) },
  {
    id: 'POST /webhook_endpoints/{id}/rotate_secret',
    method: 'POST',
    path: n('webhook_endpoints', { ref: 'whe', kind: 'endpoint' }, 'rotate_secret'),
    body: 'rotation',
  },
  { id: 'POST /webhook_endpoints/{id}/test', method: 'POST', path: n('webhook_endpoints', { ref: 'whe', kind: 'endpoint' }, 'test') },
  {
    id: 'GET /webhook_endpoints/{id}/deliveries',
    method: 'GET',
    path: n('webhook_endpoints', { ref: 'whe', kind: 'endpoint' }, 'deliveries'),
    query: LIST,
    list: true,
  },
  { id: 'GET /events', method: 'GET', path: n('events'), query: LIST, list: true },
  { id: 'GET /events/{id}', method: 'GET', path: n('events', { ref: 'evtDone', kind: 'event' }) },
  { id: 'POST /events/{id}/redeliver', method: 'POST', path: n('events', { ref: 'evtDone', kind: 'event' }, 'redeliver') },
  { id: 'GET /usage', method: 'GET', path: n('usage'), query: ['from', 'to', 'granularity'] },
];

/** Public paths (no key) and the methods they answer. */
export const publicPaths: { path: string; methods: string[] }[] = [
  { path: '/healthz', methods: ['GET'] },
  { path: '/readyz', methods: ['GET'] },
  { path: '/v1/openapi.json', methods: ['GET'] },
  { path: '/v1/docs', methods: ['GET'] },
  { path: '/v1/embed/nature-assessment.js', methods: ['GET'] },
];

/** The methods each API path answers, from the route table. */
function methodsByPath(): Map<string, { route: Route; methods: string[] }> {
  const paths = new Map<string, { route: Route; methods: string[] }>();
  for (const route of routes) {
    const key = templateOf(route);
    const entry = paths.get(key) ?? { route, methods: [] };
    entry.methods.push(route.method);
    paths.set(key, entry);
  }
  return paths;
}

const templateOf = (route: Route) =>
  `/${route.path.map((segment) => (typeof segment === 'string' ? segment : `{${segment.kind}}`)).join('/')}`;

function pathOf(route: Route, ctx: FuzzContext, replace?: { index: number; value: string }): string {
  return (
    '/' +
    route.path
      .map((segment, index) => {
        if (replace?.index === index) return replace.value;
        return typeof segment === 'string' ? segment : encodeURIComponent(ctx.refs[segment.ref]);
      })
      .join('/')
  );
}

// ---------------------------------------------------------------------------------------------------
// Valid bodies (fresh values each time, so each would be accepted)

const validUiHash = `sha256:${'9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'}`;

export function validBody(kind: BodyKind, ctx: FuzzContext): unknown {
  switch (kind) {
    case 'subject':
      return {
        external_subject_id: `fuzz-${ctx.fresh()}`,
        metadata: { cohort: 'fuzz' },
        consent: { text_version: 'consent-v3', granted_at: '2026-01-01T09:30:00Z', ui_hash: validUiHash },
      };
    case 'start':
      return { language: 'fr' };
    case 'responses': {
      // Items 1..20 with a fresh value: accepted, it would append an event.
      const seed = Number.parseInt(ctx.fresh().replace(/\D/g, '') || '0', 10);
      return { responses: [{ item_id: `mn_${String((seed % 20) + 1).padStart(3, '0')}`, value: (seed % 5) + 1 }] };
    }
    case 'endpoint':
      return { url: ctx.receiverUrl, description: 'fuzz' };
    case 'endpointUpdate':
      // Keeps the endpoint delivering to the receiver: only its description changes.
      return { description: `fuzz-${ctx.fresh()}` };
    case 'rotation':
      return { expire_previous_in: 3600 };
  }
}

/** A field of a body, what makes it invalid, and whether it may be left out. */
interface Field {
  path: JsonPath;
  required: boolean;
  /** Values the contract refuses here (wrong types, out of limits, bad formats). */
  invalid: fc.Arbitrary<JsonNode>;
  /** String fields: where lone surrogates, invalid UTF-8 and limits counted in code points are tried. */
  text?: { max: number };
}

const notString = fc.constantFrom<unknown>(0, -1, 1.5, 1e308, true, false, null, [], ['x'], {}, { a: 'b' }).map(toNode);
const notObject = fc.constantFrom<unknown>(0, 'x', '', true, null, [], [{}], 'null').map(toNode);
const notStringNonNull = fc.constantFrom<unknown>(0, -1, 1.5, true, false, [], ['x'], {}, { a: 'b' }).map(toNode);
const longString = (min: number) => fc.integer({ min, max: min + 300 }).map((length) => toNode('a'.repeat(length)));
const strings = (...values: string[]) => fc.constantFrom(...values).map(toNode);

const astral = '\u{1F600}';
const fields: Record<BodyKind, Field[]> = {
  subject: [
    { path: ['external_subject_id'], required: true, invalid: fc.oneof(notString, strings(''), longString(256)), text: { max: 255 } },
    { path: ['metadata'], required: false, invalid: fc.oneof(notObject.filter((node) => !(node.t === 'val' && node.value === 'null'))) },
    {
      path: ['metadata', 'cohort'],
      required: false,
      invalid: fc.oneof(notString, longString(501)),
      text: { max: 500 },
    },
    { path: ['consent'], required: true, invalid: notObject },
    { path: ['consent', 'text_version'], required: true, invalid: fc.oneof(notString, strings(''), longString(65)), text: { max: 64 } },
    {
      path: ['consent', 'granted_at'],
      required: true,
      invalid: fc.oneof(
        notString,
        strings(
          '',
          '2026-01-01T09:30:00',
          '2026-01-01T09:30:00+01:00',
          '2026-13-01T09:30:00Z',
          '2026-01-01',
          '2999-01-01T00:00:00Z',
          'yesterday',
          '1735725000',
          '２０２６-01-01T09:30:00Z',
          '2026-01-01T09:30:00Z ',
        ),
      ),
      text: { max: 40 },
    },
    {
      path: ['consent', 'ui_hash'],
      required: true,
      invalid: fc.oneof(
        notString,
        strings(
          '',
          `sha256:${'A'.repeat(64)}`,
          `sha256:${'a'.repeat(63)}`,
          `sha256:${'a'.repeat(65)}`,
          `sha1:${'a'.repeat(40)}`,
          `SHA256:${'a'.repeat(64)}`,
          `sha256:${'g'.repeat(64)}`,
          `sha256:${'０'.repeat(64)}`,
        ),
      ),
      text: { max: 71 },
    },
  ],
  start: [
    {
      path: ['language'],
      required: false,
      invalid: fc.oneof(notString, strings('', 'de', 'EN', 'en ', 'english', 'en-GB', 'fr\u0000', '\u0435n')),
      text: { max: 2 },
    },
  ],
  responses: [
    {
      path: ['responses'],
      required: true,
      invalid: fc.oneof(
        notObject,
        fc.constant(toNode([])),
        // 77 entries: more than a batch may hold.
        fc.constant(toNode(Array.from({ length: 77 }, (_, i) => ({ item_id: `mn_${String((i % 76) + 1).padStart(3, '0')}`, value: 3 })))),
        // One item twice in a batch.
        fc.constant(
          toNode([
            { item_id: 'mn_001', value: 3 },
            { item_id: 'mn_001', value: 4 },
          ]),
        ),
      ),
    },
    { path: ['responses', 0], required: true, invalid: fc.constantFrom<unknown>('mn_001', 3, null, true, [], [1, 2]).map(toNode) },
    {
      path: ['responses', 0, 'item_id'],
      required: true,
      invalid: fc.oneof(
        notString,
        strings('', 'mn_000', 'mn_077', 'MN_001', 'mn_1', 'mn_001 ', ' mn_001', 'mn_００1', 'mn_0\u200d01', 'mn-001', 'item_001'),
      ),
      text: { max: 6 },
    },
    {
      path: ['responses', 0, 'value'],
      required: true,
      invalid: fc.constantFrom<unknown>(0, 6, -1, 1.5, 4.5, 5.0001, '3', '', null, true, [], {}, [3], 1e308, -0.5).map(toNode),
    },
  ],
  endpoint: [
    {
      path: ['url'],
      required: true,
      invalid: fc.oneof(
        notString,
        strings(
          '',
          'not a url',
          'ftp://127.0.0.1/hooks',
          'file:///etc/passwd',
          'javascript:alert(1)',
          'http://10.0.0.1/hooks',
          'http://192.168.1.1/hooks',
          'http://172.16.0.1/hooks',
          'http://169.254.169.254/latest/meta-data',
          'http://[fc00::1]/hooks',
          'http://[fe80::1]/hooks',
          'http://100.64.0.1/hooks',
          'http://[::ffff:10.0.0.1]/hooks',
          'http://[::ffff:a9fe:a9fe]/hooks',
          'http:///hooks',
          'http://',
          `http://127.0.0.1/${'a'.repeat(2048)}`,
        ),
      ),
      text: { max: 2048 },
    },
    {
      path: ['enabled_events'],
      required: false,
      invalid: fc.oneof(
        notObject.filter((node) => !(node.t === 'arr')),
        fc
          .constantFrom<unknown>([], ['nope'], ['NATURE.ASSESSMENT.COMPLETED'], [1], [null], 'nature.assessment.completed', [
            'nature.assessment.completed',
            'nope',
          ])
          .map(toNode),
      ),
    },
    { path: ['description'], required: false, invalid: fc.oneof(notStringNonNull, longString(501)), text: { max: 500 } },
  ],
  // Every field optional, each refused as at registration; status only "enabled" or "disabled".
  endpointUpdate: [
    {
      path: ['url'],
      required: false,
      invalid: fc.oneof(
        notString,
        strings('', 'not a url', 'http://10.0.0.1/hooks', 'http://169.254.169.254/latest/meta-data', 'http:///hooks'),
      ),
      text: { max: 2048 },
    },
    {
      path: ['enabled_events'],
      required: false,
      invalid: fc.constantFrom<unknown>([], ['nope'], [1], [null], null, 'nature.assessment.completed').map(toNode),
    },
    { path: ['description'], required: false, invalid: fc.oneof(notStringNonNull, longString(501)), text: { max: 500 } },
    { path: ['status'], required: false, invalid: fc.constantFrom<unknown>('paused', 'ENABLED', '', 1, null, true, [], {}).map(toNode) },
  ],
  rotation: [
    {
      path: ['expire_previous_in'],
      required: false,
      invalid: fc.constantFrom<unknown>(-1, 604_801, 1.5, '60', null, true, [], {}, 1e308).map(toNode),
    },
  ],
};

/** Keys each object of a body may hold; anything else is an unknown field. */
const objectKeys: Record<BodyKind, { path: JsonPath; keys: string[] }[]> = {
  subject: [
    { path: [], keys: ['external_subject_id', 'metadata', 'consent'] },
    { path: ['consent'], keys: ['text_version', 'granted_at', 'ui_hash'] },
  ],
  start: [{ path: [], keys: ['language'] }],
  responses: [
    { path: [], keys: ['responses'] },
    { path: ['responses', 0], keys: ['item_id', 'value'] },
  ],
  endpoint: [{ path: [], keys: ['url', 'enabled_events', 'description'] }],
  endpointUpdate: [{ path: [], keys: ['url', 'enabled_events', 'description', 'status'] }],
  rotation: [{ path: [], keys: ['expire_previous_in'] }],
};

const prototypeKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];
const unknownKeyNames = fc.oneof(
  fc.constantFrom(
    ...prototypeKeys,
    'id',
    'object',
    'livemode',
    'created_at',
    'status',
    'a/b~c',
    '~0',
    '',
    ' ',
    '\u0000',
    astral,
    'e\u0301',
    'EXTERNAL_SUBJECT_ID',
    'url ',
  ),
  fc.string({ minLength: 1, maxLength: 12, unit: 'binary' }),
);
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map(toNode),
  fc
    .constantFrom<unknown>({ polluted: true }, { __proto__: null }, { constructor: { prototype: { polluted: true } } })
    .map((value) => toNode(JSON.parse(JSON.stringify(value)))),
  fc.constant<JsonNode>({ t: 'obj', entries: [['__proto__', { t: 'obj', entries: [['polluted', { t: 'val', value: true }]] }]] }),
);

/** Lone surrogates: well-formed JSON escapes of strings that are not well-formed Unicode. */
const loneSurrogates = fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '\ude00b', 'x\udbff\udbffy', '\ud800\ud800');
/** Byte sequences that are not UTF-8: a lone continuation byte, overlong forms, a surrogate encoded (CESU), a cut sequence, 0xFF. */
const invalidUtf8 = fc.constantFrom(
  Buffer.from([0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xe0, 0x80, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xff]),
  Buffer.from([0xf5, 0x80, 0x80, 0x80]),
  Buffer.from([0xf0, 0x9f, 0x98]),
);

// ---------------------------------------------------------------------------------------------------
// Requests

function authHeader(key: KeyName | null, ctx: FuzzContext): [string, string][] {
  return key === null ? [] : [['Authorization', `Bearer ${ctx.keys[key]}`]];
}

interface BaseOptions {
  key?: KeyName | null;
  method?: string;
  path?: string;
  query?: string;
  bodyBytes?: Buffer | null;
  contentType?: string | null;
}

/** The route's valid request (it would succeed), with what the options replace. */
function base(route: Route, ctx: FuzzContext, options: BaseOptions = {}): FuzzRequest {
  const key = options.key === undefined ? 'rw' : options.key;
  const listQuery = route.list ? '?limit=5' : route.id === 'GET /usage' ? '?granularity=month' : '';
  const query = options.query ?? listQuery;
  const body =
    options.bodyBytes === undefined
      ? route.body
        ? serialize(toNode(validBody(route.body, ctx)))
        : undefined
      : (options.bodyBytes ?? undefined);
  const contentType = options.contentType === undefined ? (body !== undefined ? 'application/json' : null) : options.contentType;
  return {
    method: options.method ?? route.method,
    target: `${options.path ?? pathOf(route, ctx)}${query}`,
    version: 'HTTP/1.1',
    headers: [...authHeader(key, ctx), ...(contentType !== null ? ([['Content-Type', contentType]] as [string, string][]) : [])],
    ...(body !== undefined && { body }),
    expect: [],
    variant: '',
    authLabel: key === null ? 'none' : `<${key} key>`,
  };
}

/** Headers that change nothing about the outcome, sent along to exercise header handling. */
const noise = fc.option(
  fc.constantFrom<[string, string][]>(
    [['request-id', 'req_spoofed_by_client']],
    [['X-Request-Id', '\u00e9\u00e9']],
    [['Accept', 'application/xml']],
    [['Accept', '*/*;q=0.1, text/html']],
    [['Accept-Language', 'zz-ZZ']],
    [['Accept-Encoding', 'gzip, br, zstd']],
    [['User-Agent', 'x'.repeat(4000)]],
    [['X-Forwarded-For', '10.0.0.1, ::1, not-an-ip']],
    [['Cookie', 'session=__proto__']],
    [['Origin', 'https://evil.example']],
    [['X-HTTP-Method-Override', 'DELETE']],
  ),
  { nil: [] as [string, string][] },
);

const withNoise = (request: FuzzRequest, extra: [string, string][]): FuzzRequest => ({
  ...request,
  headers: [...request.headers, ...extra],
});

/** A body of `kind` spoiled by one edit, as JSON text. */
const editedBody = (kind: BodyKind, edit: Edit) => (ctx: FuzzContext) => serialize(applyEdit(toNode(validBody(kind, ctx)), edit));

export interface Check {
  category: string;
  route: string;
  arbitrary: fc.Arbitrary<Plan>;
}

const expecting =
  (statuses: number[], variant: string) =>
  (request: FuzzRequest): FuzzRequest => ({ ...request, expect: statuses, variant });

/** Every check of the suite: one property per category and route. */
export function checks(): Check[] {
  const all: Check[] = [];
  const add = (category: string, route: string, arbitrary: fc.Arbitrary<Plan>) => all.push({ category, route, arbitrary });

  for (const route of routes) {
    // --- Credentials: missing, malformed, unknown, revoked, rotated, duplicated. Everything else valid.
    const badAuth = fc.oneof(
      fc.constant<[string, string | Buffer][]>([]),
      fc.constantFrom<[string, string][]>(
        [['Authorization', 'Bearer']],
        [['Authorization', 'Bearer ']],
        [['Authorization', '']],
        [['Authorization', 'Basic dGVzdDp0ZXN0']],
        [['Authorization', 'Token test_sk_abc']],
        [['Authorization', `Bearer ${'a'.repeat(8000)}`]],
        [['Authorization', 'Bearer test_sk_']],
        [['Authorization', 'Bearer null']],
        [['Authorization', 'Bearer undefined']],
        [['Authorization', 'Bearer __proto__']],
      ),
      fc
        .stringMatching(/^[0-9A-Za-z]{32,40}$/)
        .chain((random) =>
          fc.constantFrom<[string, string][]>(
            [['Authorization', `Bearer test_sk_${random}`]],
            [['Authorization', `Bearer live_sk_${random}`]],
            [['Authorization', `Bearer test_pk_${random}`]],
            [['Authorization', `bearer test_sk_${random}`]],
          ),
        ),
      fc
        .string({ minLength: 1, maxLength: 60, unit: 'grapheme' })
        // Control characters would end the header line: that is the header category's business.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
        .filter((text) => !/[\u0000-\u001f\u007f]/.test(text))
        .map((text): [string, string][] => [['Authorization', `Bearer ${text}`]]),
      fc
        .constantFrom(Buffer.from('Bearer t\xe9st_sk_\xff\xfe', 'latin1'))
        .map((bytes): [string, string | Buffer][] => [['Authorization', bytes]]),
    );
    const keyed = fc.constantFrom<'revoked' | 'rotated' | 'tampered' | 'suffixed' | 'twice' | 'duplicate'>(
      'revoked',
      'rotated',
      'tampered',
      'suffixed',
      'twice',
      'duplicate',
    );
    add(
      'credentials',
      route.id,
      fc
        .tuple(
          fc.oneof(
            badAuth.map((headers) => ({ headers })),
            keyed.map((keyCase) => ({ keyCase })),
          ),
          noise,
        )
        .map(([bad, extra]) => (ctx: FuzzContext) => {
          const request = base(route, ctx, { key: null });
          let headers: [string, string | Buffer][];
          let label: string;
          if ('headers' in bad) {
            headers = bad.headers;
            label = bad.headers.length === 0 ? 'none' : 'malformed/unknown';
          } else {
            const key = ctx.keys.rw;
            const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
            const cases = {
              revoked: [['Authorization', `Bearer ${ctx.keys.revoked}`]],
              rotated: [['Authorization', `Bearer ${ctx.keys.rotated}`]],
              tampered: [['Authorization', `Bearer ${flipped}`]],
              suffixed: [['Authorization', `Bearer ${key}x`]],
              twice: [['Authorization', `Bearer ${key}, Bearer ${key}`]],
              // The first Authorization header is not valid; a second one is.
              duplicate: [
                ['Authorization', 'Bearer test_sk_notavalidkeynotavalidkeynotavalid'],
                ['Authorization', `Bearer ${key}`],
              ],
            } satisfies Record<string, [string, string][]>;
            headers = cases[bad.keyCase] as [string, string][];
            label = `<${bad.keyCase} key>`;
          }
          return { ...request, headers: [...headers, ...request.headers, ...extra], expect: [401], variant: label, authLabel: label };
        }),
    );

    // --- Scopes: a pk key outside the item bank, a read-only key on a write, a write-only key on a read.
    const scopeKeys: KeyName[] = [
      ...(route.publishable ? [] : (['pk'] as KeyName[])),
      ...(route.method === 'GET' ? (['writeOnly'] as KeyName[]) : (['readOnly'] as KeyName[])),
    ];
    add(
      'scope',
      route.id,
      fc.tuple(fc.constantFrom(...scopeKeys), noise).map(
        ([key, extra]) =>
          (ctx: FuzzContext) =>
            expecting([403], `${key} key`)(withNoise(base(route, ctx, { key }), extra)),
      ),
    );

    // --- Ids in the path: not existing, of another kind, of the other environment, erased, or junk.
    const slots = route.path.flatMap((segment, index) => (typeof segment === 'string' ? [] : [{ index, kind: segment.kind }]));
    if (slots.length > 0) {
      add(
        'ids',
        route.id,
        fc.tuple(fc.constantFrom(...slots), idReplacement, noise).map(([slot, [label, replacement], extra]) => (ctx: FuzzContext) => {
          let value = replacement(ctx, slot.kind);
          // An erased subject's audit still answers (it is kept for audit): an id that is not there instead.
          if (route.id.endsWith('/audit') && value === encodeURIComponent(ctx.refs.subjErased)) value = `${value}x`;
          return expecting(
            [404, 410],
            `${slot.kind} id: ${label}`,
          )(withNoise(base(route, ctx, { path: pathOf(route, ctx, { index: slot.index, value }) }), extra));
        }),
      );
    }

    // --- Unknown query parameters, on every route.
    const allowed = new Set(route.query ?? []);
    add(
      'query: unknown parameter',
      route.id,
      fc
        .tuple(
          fc.array(
            fc.tuple(
              fc.oneof(
                fc.constantFrom(
                  ...prototypeKeys,
                  'LIMIT',
                  'Limit',
                  'limit ',
                  'expand',
                  'debug',
                  'id',
                  'livemode',
                  'a[b]',
                  'limit[]',
                  '__proto__[polluted]',
                  'constructor[prototype][polluted]',
                  astral,
                  'e\u0301',
                ),
                fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme-ascii' }),
              ),
              fc.string({ maxLength: 10 }),
            ),
            { minLength: 1, maxLength: 3 },
          ),
          fc.boolean(),
          noise,
        )
        .filter(([params]) => params.some(([name]) => !allowed.has(name) && name.trim() !== '' && !name.startsWith('[')))
        .map(([params, encodeNames, extra]) => (ctx: FuzzContext) => {
          const request = base(route, ctx);
          const separator = request.target.includes('?') ? '&' : '?';
          const written = params.map(([name, value]) => `${encodeNames ? encode(name) : encodeQueryName(name)}=${encode(value)}`).join('&');
          return expecting([422], 'unknown parameter')(withNoise({ ...request, target: `${request.target}${separator}${written}` }, extra));
        }),
    );

    // --- Known query parameters with values the contract refuses.
    const queries = { 'GET /usage': usageQueries, 'GET /profiles/{id}/chart.svg': chartQueries }[route.id];
    if (route.list || queries) {
      const values = queries ?? listQueries(route.id === 'GET /subjects');
      add(
        'query: invalid value',
        route.id,
        fc.tuple(values, noise).map(([query, extra]) => (ctx: FuzzContext) => {
          const written = query(ctx);
          return expecting([400, 422], written.slice(1).split(/[=[&]/)[0]!)(withNoise(base(route, ctx, { query: written }), extra));
        }),
      );
    }

    // --- Bodies: every way of being wrong, on every route that takes one.
    if (route.body) bodyChecks(route, route.body, add);

    // --- Content types other than JSON on every route that may carry a body (the body itself valid).
    if (route.method !== 'GET') {
      add(
        'content type',
        route.id,
        fc.tuple(badContentType, noise).map(([contentType, extra]) => (ctx: FuzzContext) => {
          const bodyBytes = route.body ? serialize(toNode(validBody(route.body, ctx))) : Buffer.from('{}');
          return expecting(
            contentType === null ? [400, 415] : [415],
            contentType === null ? 'no Content-Type' : 'not JSON',
          )(withNoise(base(route, ctx, { bodyBytes, contentType }), extra));
        }),
      );
    }
  }

  // --- Methods a path does not answer: 405 with Allow, on every path (API and public).
  for (const [template, { route, methods }] of methodsByPath()) {
    const others = [
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'PROPFIND',
      'MKCOL',
      'COPY',
      'MOVE',
      'LOCK',
      'PURGE',
      'SEARCH',
      'REPORT',
      'TRACE',
    ].filter((m) => !methods.includes(m));
    add(
      'method',
      template,
      fc.tuple(fc.constantFrom(...others), fc.boolean(), noise).map(([method, withBody, extra]) => (ctx: FuzzContext) => {
        const bodyBytes = withBody && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? Buffer.from('{}') : null;
        return expecting(
          [405],
          method,
        )(withNoise(base(route, ctx, { method, bodyBytes, contentType: bodyBytes ? 'application/json' : null, query: '' }), extra));
      }),
    );
  }
  for (const { path, methods } of publicPaths) {
    const others = ['POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m));
    add(
      'method',
      path,
      fc.tuple(fc.constantFrom(...others), noise).map(([method, extra]) => () => ({
        method,
        target: path,
        version: 'HTTP/1.1',
        headers: extra,
        expect: [405],
        variant: method,
        authLabel: 'none',
      })),
    );
  }

  // --- Routes that do not exist: 404 with or without a key (401 only for a key that is not valid).
  add(
    'unknown route',
    '*',
    fc
      .tuple(
        unknownPath,
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
        fc.constantFrom<'none' | 'rw' | 'bad'>('none', 'rw', 'bad'),
        noise,
      )
      .map(([path, method, auth, extra]) => (ctx: FuzzContext) => ({
        method,
        target: path,
        version: 'HTTP/1.1',
        headers: [
          ...(auth === 'rw'
            ? authHeader('rw', ctx)
            : auth === 'bad'
              ? ([['Authorization', 'Bearer test_sk_unknownunknownunknownunknown']] as [string, string][])
              : []),
          ...extra,
        ],
        expect: auth === 'bad' ? [401, 404] : [404],
        variant: `key: ${auth}`,
        authLabel: auth === 'rw' ? '<rw key>' : auth,
      })),
  );

  // --- The HTTP layer itself: header abuse, bad request lines, truncated bodies (raw bytes on a socket).
  add(
    'headers',
    '*',
    fc.tuple(fc.constantFrom(...routes), headerAbuse).map(
      ([route, abuse]) =>
        (ctx: FuzzContext) =>
          abuse(route, ctx),
    ),
  );
  add(
    'request line',
    '*',
    fc.tuple(fc.constantFrom(...routes), requestLineAbuse).map(
      ([route, abuse]) =>
        (ctx: FuzzContext) =>
          abuse(route, ctx),
    ),
  );
  const bodyRoutes = routes.filter((route) => route.body);
  add(
    'truncated body',
    '*',
    fc
      .tuple(
        fc.constantFrom(...bodyRoutes),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.constantFrom<'length' | 'chunked'>('length', 'chunked'),
      )
      .map(([route, fraction, framing]) => (ctx: FuzzContext) => {
        const request = base(route, ctx);
        const body = request.body!;
        const cut = body.subarray(0, Math.floor(body.length * fraction));
        if (framing === 'length') {
          return {
            ...request,
            headers: [...request.headers, ['Content-Length', String(body.length)]],
            body: cut,
            framing: 'as-is',
            halfClose: true,
            allowNoResponse: true,
            expect: [400],
            variant: 'Content-Length',
          };
        }
        // Chunked, stopped in the middle (no last chunk).
        const chunked = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), cut]);
        return {
          ...request,
          headers: [...request.headers, ['Transfer-Encoding', 'chunked']],
          body: chunked,
          framing: 'as-is',
          halfClose: true,
          allowNoResponse: true,
          expect: [400],
          variant: 'chunked',
        };
      }),
  );
  return all;
}

/** A query parameter name written raw where that is still a parameter name (brackets), else encoded. */
function encodeQueryName(name: string): string {
  return /^[\w[\]\-.~]+$/.test(name) ? name : encode(name);
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) is written as the bytes Node would send for it. */
export function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

type IdReplacement = [label: string, (ctx: FuzzContext, kind: IdKind) => string];
const idReplacement: fc.Arbitrary<IdReplacement> = fc.oneof(
  // Well-formed but no such resource.
  fc
    .tuple(
      fc.constantFrom('sub', 'asm', 'prf', 'whe', 'evt', 'key', 'req', 'whd'),
      fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{24}$/),
      fc.boolean(),
    )
    .map(
      ([prefix, random, own]): IdReplacement => [
        'well-formed, no such resource',
        (_ctx, kind) =>
          `${own ? { subject: 'sub', assessment: 'asm', profile: 'prf', endpoint: 'whe', event: 'evt' }[kind] : prefix}_01${random}`,
      ],
    ),
  // A real id of another kind, of the other environment, or of an erased subject.
  fc
    .constantFrom<RefName>(
      'subjOpen',
      'asmOpen',
      'asmDone',
      'prfDone',
      'evtDone',
      'whe',
      'subjErased',
      'subjLive',
      'asmLive',
      'prfLive',
      'evtLive',
    )
    .map(
      (ref): IdReplacement => [
        ref === 'subjErased' ? 'an erased subject' : ref.endsWith('Live') ? 'of the other environment' : 'of another kind',
        (ctx, kind) => {
          const sameKind = { subject: 'sub_', assessment: 'asm_', profile: 'prf_', endpoint: 'whe_', event: 'evt_' }[kind];
          const value = ctx.refs[ref];
          // A real id of the same kind in the same environment would be valid: use the erased or the live one instead.
          if (value.startsWith(sameKind) && !['subjErased', 'subjLive', 'asmLive', 'prfLive', 'evtLive'].includes(ref))
            return encodeURIComponent(`${value}x`);
          return encodeURIComponent(value);
        },
      ],
    ),
  // Junk, written raw where that is the point (bad escapes, dot segments), else percent-encoded.
  fc
    .constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'null',
      'undefined',
      '0',
      '-1',
      '%00',
      '..',
      '.',
      '%2e%2e',
      '%2F',
      '%2F..%2F..%2Fetc%2Fpasswd',
      'sub_',
      '%20',
      '%ZZ',
      '%',
      '%E0%A4%A',
      '%ED%A0%80',
      '%FF',
      '%F0%9F%98%80',
      '*',
      '%27%3B%20DROP%20TABLE%20events%3B--',
      '%7B%22%24ne%22%3Anull%7D',
      'a'.repeat(3000),
    )
    .map((value): IdReplacement => ['junk', () => value]),
  fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }).map((value): IdReplacement => ['junk', () => encode(value)]),
);

const listQueries = (subjects: boolean): fc.Arbitrary<(ctx: FuzzContext) => string> =>
  fc.oneof(
    fc
      .constantFrom(
        '0',
        '101',
        '-1',
        '1.5',
        'abc',
        '',
        '10abc',
        'Infinity',
        'NaN',
        '１',
        '-0',
        '1e999',
        '99999999999999999999',
        'true',
        '[]',
        '%00',
      )
      .map((limit) => () => `?limit=${limit.startsWith('%') ? limit : encodeURIComponent(limit)}`),
    fc
      .constantFrom(
        '?limit=1&limit=2',
        '?limit[]=5',
        '?limit[a]=5',
        '?starting_after=',
        '?ending_before=',
        '?starting_after=a&starting_after=b',
      )
      .map((query) => () => query),
    fc.constant((ctx: FuzzContext) => `?starting_after=${ctx.refs.subjOpen}&ending_before=${ctx.refs.subjDone}`),
    fc
      .tuple(
        fc.constantFrom('starting_after', 'ending_before'),
        fc.oneof(fc.stringMatching(/^(sub|asm|whe|evt|prf)_01[0-9A-Z]{24}$/), fc.constantFrom('__proto__', 'x', astral, '\u0000')),
      )
      .map(
        ([name, value]) =>
          () =>
            `?${name}=${encodeURIComponent(value)}`,
      ),
    ...(subjects ? [fc.constantFrom('', 'a'.repeat(256)).map((value) => () => `?external_subject_id=${value}`)] : []),
  );

const usageQueries: fc.Arbitrary<(ctx: FuzzContext) => string> = fc
  .constantFrom(
    '?from=2026-13-01',
    '?from=yesterday',
    '?from=2026-11-22T00:00:00%2B01:00',
    '?from=2026-11-22T00:00:00',
    '?to=2026-02-30x',
    '?from=2026-12-01&to=2026-11-01',
    '?from=2026-11-01&to=2026-11-01',
    '?granularity=week',
    '?granularity=',
    '?granularity=DAY',
    '?granularity=day&granularity=month',
    '?from=',
    '?from[]=2026-11-01',
    '?from=%ED%A0%80',
  )
  .map((query) => () => query);

const chartQueries: fc.Arbitrary<(ctx: FuzzContext) => string> = fc
  .constantFrom(
    '?theme=',
    '?theme=Dark',
    '?theme=light,dark',
    '?theme[]=dark',
    '?theme=dark&theme=light',
    '?width=319',
    '?width=1601',
    '?width=0',
    '?width=-400',
    '?width=400.0',
    '?width=4e2',
    '?width=0x200',
    '?width=0400',
    '?width=%EF%BC%94%EF%BC%90%EF%BC%90',
    '?width=99999999999999999999',
    '?width=',
    '?width=400&width=500',
  )
  .map((query) => () => query);

const badContentType = fc.constantFrom<string | null>(
  'text/plain',
  'text/plain; charset=utf-8',
  'text/html',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/jsonx',
  'application/javascript',
  'image/png',
  'json',
  'application',
  '*/*',
  '',
  'APPLICATION/XML',
  null,
);

const knownSegments = new Set([
  'v1',
  'nature',
  'subjects',
  'items',
  'profiles',
  'webhook_endpoints',
  'events',
  'usage',
  'docs',
  'openapi.json',
  'healthz',
  'readyz',
  'assessments',
  'audit',
  'profile',
  'deliveries',
  'redeliver',
  'rotate_secret',
  'test',
]);
const unknownPath: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        '/',
        '/v1/',
        '/v1/nature/',
        '/v2/nature/',
        '/api/v1/',
        '/V1/NATURE/',
        '/v1/nature/subjects/sub_x/',
        '/v1/nature/webhook_endpoints/whe_x/',
      ),
      fc.stringMatching(/^[a-z][a-z0-9_.-]{0,15}$/).filter((segment) => !knownSegments.has(segment)),
    )
    .map(([prefix, segment]) => `${prefix}${segment}`),
  fc.constantFrom(
    '/v1/nature/items/',
    '/v1/nature/subjects/',
    '//v1/nature/items',
    '/v1//nature/items',
    '/v1/nature/items/extra',
    '/V1/nature/items',
    '/v1/Nature/Items',
    '/v1/nature/items.json',
    '/v1/nature/subjects/x/y/z',
    '/v1/situational/tests',
    '/v1/careers/',
    '/v1/content/articles/1',
    '/.env',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/favicon.ico',
    '/healthz/',
    '/v1/openapi.yaml',
  ),
);

type Abuse = (route: Route, ctx: FuzzContext) => FuzzRequest;

const headerAbuse: fc.Arbitrary<Abuse> = fc.oneof(
  // Headers larger than the server reads (16 KiB by default).
  fc.integer({ min: 17_000, max: 40_000 }).map(
    (size): Abuse =>
      (route, ctx) =>
        expecting(
          [400, 431],
          'oversized headers',
        )({ ...base(route, ctx), headers: [...base(route, ctx).headers, ['X-Padding', 'a'.repeat(size)]] }),
  ),
  fc.integer({ min: 300, max: 1500 }).map(
    (count): Abuse =>
      (route, ctx) =>
        expecting(
          [400, 401, 431],
          'many headers',
        )({
          ...base(route, ctx, { key: null }),
          headers: [
            ...base(route, ctx, { key: null }).headers,
            ...Array.from({ length: count }, (_, i): [string, string] => [`X-Junk-${i}`, 'x'.repeat(8)]),
          ],
        }),
  ),
  // Malformed header lines: no colon, bad name characters, control characters, obsolete line folding.
  fc
    .constantFrom(
      'X-No-Colon',
      'X Bad Name: v',
      'X-Bad\u0001Name: v',
      'X-Nul: a\u0000b',
      'X-Cr: a\rb',
      'X-Fold: a\r\n folded',
      ': empty-name',
      'X-Bad(Name): v',
      'Content-Length: 1\r\nContent-Length: 2',
      'Content-Length: -1',
      'Content-Length: abc',
      'Content-Length: 1, 2',
      'Transfer-Encoding: chunked\r\nContent-Length: 5',
      'Transfer-Encoding: gzip',
      'Transfer-Encoding: chunked, identity',
    )
    .map(
      (line): Abuse =>
        (route, ctx) => {
          const request = base(route, ctx);
          const rawLine = Buffer.from(line, 'latin1');
          return {
            ...request,
            // The bad line goes first among the headers; the body (if any) keeps its own Content-Length unless the line frames it.
            requestLine: Buffer.concat([Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\n`, 'latin1'), rawLine]),
            framing: /Content-Length|Transfer-Encoding/.test(line) ? 'as-is' : 'length',
            expect: [400],
            variant: `header line ${JSON.stringify(line)}`,
          };
        },
    ),
  // A chunked body whose framing is broken.
  // Each body is not JSON either, so even a framing the server tolerates cannot make the request valid.
  // A route that takes no body sends no Content-Type: 415 for a body without one is as right as 400.
  fc.constantFrom('zz\r\n{\r\n0\r\n\r\n', '2\r\n{{{\r\n0\r\n\r\n', '-1\r\n{\r\n0\r\n\r\n', '2;\r\n{"\r\n0\r\n\r\n\u0000').map(
    (chunks): Abuse =>
      (route, ctx) => ({
        ...base(route, ctx, { method: route.method === 'GET' ? 'POST' : route.method }),
        headers: [...base(route, ctx).headers, ['Transfer-Encoding', 'chunked']],
        body: Buffer.from(chunks, 'latin1'),
        framing: 'as-is',
        expect: [400, 405, 415],
        variant: 'broken chunked framing',
      }),
  ),
  // Expectations the server cannot meet, and no Host in HTTP/1.1.
  fc.constantFrom('Expect: something-else', 'Expect: 100-continue-please').map(
    (line): Abuse =>
      (route, ctx) => ({
        ...base(route, ctx),
        headers: [...base(route, ctx).headers, ['Expect', line.slice('Expect: '.length)]],
        expect: [400, 417],
        variant: 'Expect',
      }),
  ),
  fc.constant<Abuse>((route, ctx) => expecting([400], 'no Host')({ ...base(route, ctx), noHost: true })),
  // RFC 9112 section 3.2: more than one Host is a 400.
  fc.constant<Abuse>((route, ctx) =>
    expecting([400], 'two Host headers')({ ...base(route, ctx), headers: [...base(route, ctx).headers, ['Host', 'evil.example']] }),
  ),
  // A body in a content coding the server does not support, sent uncompressed.
  fc.constantFrom('gzip', 'deflate', 'br', 'zstd', 'x-unknown').map(
    (coding): Abuse =>
      (route, ctx) => {
        const request = base(
          route,
          ctx,
          route.body
            ? {}
            : { bodyBytes: Buffer.from('{}'), contentType: 'application/json', method: route.method === 'GET' ? 'POST' : route.method },
        );
        return {
          ...request,
          headers: [...request.headers, ['Content-Encoding', coding]],
          expect: route.method === 'GET' ? [400, 405, 415] : [400, 415],
          variant: 'Content-Encoding',
        };
      },
  ),
  // Idempotency keys of every shape, without credentials (refused either way).
  fc.constantFrom('', ' ', 'x'.repeat(10_000), '\u00e9\u00e8', '__proto__', 'a\tb').map(
    (value): Abuse =>
      (route, ctx) =>
        expecting(
          [400, 401, 422],
          'Idempotency-Key',
        )({ ...base(route, ctx, { key: null }), headers: [...base(route, ctx, { key: null }).headers, ['Idempotency-Key', value]] }),
  ),
);

const itemBank = routes.find((route) => route.id === 'GET /items')!;

const requestLineAbuse: fc.Arbitrary<Abuse> = fc.oneof(
  fc.constantFrom('get', 'Get', 'post', 'FOO', 'G3T', 'GETT', '@GET', 'GE\u0000T', 'GET\t').map(
    (method): Abuse =>
      (route, ctx) =>
        expecting([400, 405, 501], 'method token')({ ...base(route, ctx, { key: null }), method }),
  ),
  fc.constantFrom('HTTP/9.9', 'HTTP/1.1x', 'HTTX/1.1', 'http/1.1', 'HTTP/1', 'HTTP/', 'HTTP/1.1 extra', '').map(
    (version): Abuse =>
      (route, ctx) =>
        expecting([400, 401, 404, 505], 'version')({ ...base(route, ctx, { key: null }), version }),
  ),
  fc
    .constantFrom(
      'v1/nature/items',
      '*',
      '/v1/nature/ items',
      '/v1/nature/\u0000items',
      '/v1/nature/\u0001',
      '/v1/nature/\u007f',
      '/v1/nature/items#fragment',
      '/v1/\u00ffnature',
    )
    .map(
      (target): Abuse =>
        (_route, ctx) =>
          expecting([400, 401, 404], 'target')({ ...base(itemBank, ctx, { key: null }), target }),
    ),
  fc.integer({ min: 17_000, max: 60_000 }).map(
    (length): Abuse =>
      (route, ctx) =>
        expecting([400, 414, 431], 'long target')({ ...base(route, ctx), target: `${pathOf(route, ctx)}?limit=${'1'.repeat(length)}` }),
  ),
  fc.constant<Abuse>((route, ctx) => ({
    ...base(route, ctx, { key: null }),
    method: 'CONNECT',
    target: '127.0.0.1:80',
    expect: [400, 405],
    variant: 'CONNECT',
    allowNoResponse: true,
  })),
);

/** The body categories of one route: types, missing fields, limits, unknown and prototype keys, duplicates, Unicode, nesting, syntax, size. */
function bodyChecks(route: Route, kind: BodyKind, add: (category: string, route: string, arbitrary: fc.Arbitrary<Plan>) => void): void {
  const bodyFields = fields[kind];
  const send =
    (statuses: number[], variant: string) =>
    (bytes: (ctx: FuzzContext) => Buffer, extra: [string, string][]): Plan =>
    (ctx: FuzzContext) =>
      expecting(statuses, variant)(withNoise(base(route, ctx, { bodyBytes: bytes(ctx) }), extra));
  const named = (path: JsonPath) => (path.length === 0 ? 'the whole body' : `/${path.join('/')}`);

  // Wrong types and values out of limits, field by field; a top-level value that is not an object.
  // An optional body may be null: fastify reads an absent body as null, so a route that takes none accepts it.
  const optionalBody = kind === 'start' || kind === 'endpointUpdate' || kind === 'rotation';
  const topLevel = fc.constantFrom<unknown>('x', 0, true, [], [{}], ...(optionalBody ? [] : [null])).map(toNode);
  add(
    'body: type or limit',
    route.id,
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(...bodyFields).chain((field) => field.invalid.map((value): Edit => ({ op: 'set', path: field.path, value }))),
          topLevel.map((value): Edit => ({ op: 'set', path: [], value })),
        ),
        noise,
      )
      .map(([edit, extra]) => send([422], named(edit.path))(editedBody(kind, edit), extra)),
  );

  // Required fields left out.
  const required = bodyFields.filter((field) => field.required);
  if (required.length > 0) {
    add(
      'body: missing field',
      route.id,
      fc
        .tuple(fc.constantFrom(...required), noise)
        .map(([field, extra]) => send([422], named(field.path))(editedBody(kind, { op: 'delete', path: field.path }), extra)),
    );
  }

  // Fields the contract does not know, prototype keys among them (metadata keys are free, so never there).
  add(
    'body: unknown or prototype key',
    route.id,
    fc
      .tuple(fc.constantFrom(...objectKeys[kind]), unknownKeyNames, anyJson, noise)
      .filter(([object, key]) => !object.keys.includes(key))
      .map(([object, key, value, extra]) =>
        send([422], `${prototypeKeys.includes(key) ? 'prototype' : 'unknown'} key in ${named(object.path)}`)(
          editedBody(kind, { op: 'add', path: object.path, key, value }),
          extra,
        ),
      ),
  );

  // A key twice: the last one invalid, so the body is refused whether duplicates are refused or the last wins.
  add(
    'body: duplicate key',
    route.id,
    fc
      .tuple(fc.constantFrom(...bodyFields.filter((field) => typeof field.path.at(-1) === 'string')), noise)
      .chain(([field, extra]) => field.invalid.map((value) => [field, value, extra] as const))
      .map(([field, value, extra]) =>
        send([400, 422], named(field.path))(
          editedBody(kind, { op: 'add', path: field.path.slice(0, -1), key: String(field.path.at(-1)), value }),
          extra,
        ),
      ),
  );

  // Unicode: lone surrogates, bytes that are not UTF-8, limits crossed with characters of two UTF-16 units.
  const textFields = bodyFields.filter((field) => field.text);
  if (textFields.length > 0) {
    add(
      'body: unicode',
      route.id,
      fc
        .tuple(
          fc.constantFrom(...textFields),
          fc.oneof(
            loneSurrogates.map((text) => ({ kind: 'surrogate' as const, text })),
            invalidUtf8.map((bytes) => ({ kind: 'bytes' as const, bytes })),
            fc.constantFrom(astral, 'é', '\u0301').map((char) => ({ kind: 'long' as const, char })),
          ),
          noise,
        )
        .map(([field, spoil, extra]) => {
          const value: JsonNode =
            spoil.kind === 'surrogate'
              ? toNode(spoil.text)
              : spoil.kind === 'bytes'
                ? rawString('ok', spoil.bytes, 'ok')
                : // More characters than the limit, however they are counted.
                  toNode(spoil.char.repeat(field.text!.max + 1));
          const what = { surrogate: 'a lone surrogate', bytes: 'bytes that are not UTF-8', long: 'over the limit in code points' }[
            spoil.kind
          ];
          // Fresh text around the bytes, so a body the server wrongly takes is taken again when replayed (no 409 instead).
          const bytes = (ctx: FuzzContext) =>
            serialize(
              applyEdit(toNode(validBody(kind, ctx)), {
                op: 'set',
                path: field.path,
                value: spoil.kind === 'bytes' ? rawString(`${ctx.fresh()}-`, spoil.bytes) : value,
              }),
            );
          return send([400, 422], `${what} in ${named(field.path)}`)(bytes, extra);
        }),
    );
  }

  // Deep nesting, in a field or as the whole body.
  add(
    'body: nesting',
    route.id,
    fc
      .tuple(
        fc.option(fc.constantFrom(...bodyFields), { nil: undefined }),
        fc.integer({ min: 1, max: 12_000 }),
        fc.constantFrom<'array' | 'object'>('array', 'object'),
        noise,
      )
      .map(([field, depth, shape, extra]) =>
        send([400, 413, 422], `nested ${shape}s`)(
          editedBody(kind, { op: 'set', path: field?.path ?? [], value: deeplyNested(depth + 1, shape) }),
          extra,
        ),
      ),
  );

  // Not JSON: cut short, trailing garbage, trailing commas, quotes and literals JSON does not have, empty.
  add(
    'body: syntax',
    route.id,
    fc
      .tuple(
        fc.oneof(
          fc
            .double({ min: 0, max: 0.999, noNaN: true })
            .map((fraction) => (text: Buffer) => text.subarray(0, Math.floor(text.length * fraction))),
          fc
            .constantFrom('x', ',', '}', '{}', ']', '\u0000', ' //', '\n#')
            .map((tail) => (text: Buffer) => Buffer.concat([text, Buffer.from(tail)])),
          fc.constantFrom(
            (text: Buffer) => Buffer.from(text.toString('utf8').replace(/}$/, ',}')),
            (text: Buffer) => Buffer.from(text.toString('utf8').replaceAll('"', "'")),
            (text: Buffer) => Buffer.from(`/* c */${text.toString('utf8')}`),
            ...['undefined', 'NaN', 'Infinity', '-Infinity', '0x3', '03', '+3', '.5', '3.', '1e', "'fr'"].map(
              (literal) => (text: Buffer) => Buffer.from(text.toString('utf8').replace(/:("[^"]*"|\d+)/, `:${literal}`)),
            ),
            (text: Buffer) => Buffer.from(text.toString('utf8').replace(/"([a-z_]+)":/, '$1:')),
            () => Buffer.from(''),
            () => Buffer.from('   '),
            () => Buffer.from('{'),
          ),
        ),
        noise,
      )
      .map(([spoil, extra]) => send([400], 'not JSON')((ctx) => spoil(serialize(toNode(validBody(kind, ctx)))), extra)),
  );

  // Over 64 KiB: a valid body padded with whitespace, or with one huge value.
  add(
    'body: size',
    route.id,
    fc.tuple(fc.integer({ min: 64 * 1024 + 1, max: 200 * 1024 }), fc.boolean(), noise).map(([size, padding, extra]) =>
      send([413], padding ? 'whitespace padding' : 'a huge value')((ctx) => {
        const text = serialize(toNode(validBody(kind, ctx)));
        if (padding) return Buffer.concat([text, Buffer.alloc(Math.max(0, size - text.length), ' ')]);
        return serialize(applyEdit(toNode(validBody(kind, ctx)), { op: 'add', path: [], key: 'padding', value: toNode('x'.repeat(size)) }));
      }, extra),
    ),
  );
}
