import type { RequestRecord } from '../ports/request-log.js';
import { redactSecrets } from '../support/secret-redaction.js';

/**
 * What a request's record keeps, made from what the request hook noted. Nothing a caller sent is kept unless it is
 * known not to be personal: the route's own words, ids this service made, numbers and dates in a query, booleans and
 * nulls in a body. Everything else is replaced by its name (`‹external_subject_id›`), so the record still shows which
 * fields were sent; and the problem body loses every value it quoted from them.
 */

/** What the hook notes: cheap to take, turned into a record off the request's path. */
export interface NotedRequest {
  id: string;
  at: number;
  method: string;
  route: string | null;
  url: string;
  status: number;
  duration_ms: number;
  key_id: string | null;
  key_hint: string | null;
  idempotency_key: string | null;
  /** The parsed body, as the handler saw it; undefined when it had none or it could not be read. */
  body: unknown;
  /** The problem+json text as sent, for a status of 400 or more. */
  problem: string | null;
}

/** An id this service made (`sub_01J…`): never personal, and what a developer looks for. */
const SERVICE_ID = /^[a-z]{3}_[0-9A-HJKMNP-TV-Z]{26}$/;
/** A field or parameter name as the API spells them; a caller's own name (a metadata key) of another shape is hidden too. */
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Numbers, dates and times in a query (`limit=10`, `from=2026-11-01`). */
const NUMBER_OR_TIME = /^[0-9][0-9TZ:.+-]{0,39}$/;
/** Query parameters whose values are the API's own words (`language=fr`, `type=subject.created`). */
const WORD_PARAMETERS = new Set(['language', 'theme', 'type', 'status', 'granularity', 'format']);
const WORD = /^[a-z][a-z0-9_.-]{0,39}$/;
/** Items of an array shown before the rest is counted; bodies kept at most (an outline of 76 answers stays short). */
const ITEMS_SHOWN = 3;
const DEPTH_SHOWN = 8;
const BODY_MAX = 8 * 1024;
/** Values shorter than this identify no one, and would blank out unrelated words of a problem if scrubbed. */
const SCRUBBED_MIN = 3;

const placeholder = (name: string) => `‹${name}›`;

/** A field's or parameter's name as shown: as sent when the API could have named it so, else `instead` (and it is hidden). */
function shownField(name: string, hidden: string[], instead: string): string {
  if (FIELD_NAME.test(name)) return name;
  hidden.push(name);
  return instead;
}

/** The path with every segment that is neither a word of the API's routes nor a service id hidden, and the query likewise. */
export function keptPath(url: string, routeWords: ReadonlySet<string>, hidden: string[]): string {
  const mark = url.indexOf('?');
  const pathname = mark === -1 ? url : url.slice(0, mark);
  const path = pathname
    .split('/')
    .map((segment) => {
      if (segment === '' || routeWords.has(segment) || SERVICE_ID.test(segment)) return segment;
      hidden.push(segment);
      return placeholder('segment');
    })
    .join('/');
  if (mark === -1) return redactSecrets(path);
  const query = [...new URLSearchParams(url.slice(mark + 1))].map(([name, value]) => {
    const shownName = shownField(name, hidden, placeholder('parameter'));
    const kept = SERVICE_ID.test(value) || NUMBER_OR_TIME.test(value) || (WORD_PARAMETERS.has(name) && WORD.test(value));
    if (kept) return `${shownName}=${encodeURIComponent(value)}`;
    hidden.push(value);
    return `${shownName}=${placeholder(shownName)}`;
  });
  return redactSecrets(`${path}?${query.join('&')}`);
}

/** The body's outline: its fields, each value that may be personal shown as its field's name. Not JSON: nothing in it is a value sent. */
export function outline(value: unknown, name: string, hidden: string[], depth = 0): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') {
    if (SERVICE_ID.test(value)) return JSON.stringify(value);
    hidden.push(value);
    return placeholder(name);
  }
  if (typeof value !== 'object') return placeholder(name);
  if (depth >= DEPTH_SHOWN) return '…';
  if (Array.isArray(value)) {
    const shown = value.slice(0, ITEMS_SHOWN).map((item) => outline(item, name, hidden, depth + 1));
    for (const item of value.slice(ITEMS_SHOWN)) collectStrings(item, hidden);
    const rest = value.length > ITEMS_SHOWN ? [`… ${value.length - ITEMS_SHOWN} more`] : [];
    return `[${[...shown, ...rest].join(', ')}]`;
  }
  const fields = Object.entries(value).map(([field, member]) => {
    const shownName = shownField(field, hidden, 'field');
    return `"${shownName}": ${outline(member, shownName, hidden, depth + 1)}`;
  });
  return `{${fields.join(', ')}}`;
}

/** Every string in a value not shown, so that a problem quoting one of them loses it too. */
function collectStrings(value: unknown, hidden: string[]): void {
  if (typeof value === 'string') hidden.push(value);
  else if (typeof value === 'object' && value !== null) for (const member of Object.values(value)) collectStrings(member, hidden);
}

/** The problem as sent, less every value hidden from the record, as it appears in JSON text (escaped), and decoded from a path. */
export function scrubbedProblem(problem: string, hidden: readonly string[]): string {
  const forms = new Set<string>();
  for (const value of hidden) {
    if (value.length < SCRUBBED_MIN) continue;
    forms.add(JSON.stringify(value).slice(1, -1));
    try {
      forms.add(JSON.stringify(decodeURIComponent(value)).slice(1, -1));
    } catch {
      // Not percent-encoded text: its plain form is there already.
    }
  }
  let text = problem;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form.length >= SCRUBBED_MIN) text = text.split(form).join(placeholder('redacted'));
  }
  return invalidJsonCut(text);
}

/**
 * A body that is not JSON was never read into fields, so what its parser's message quotes of it cannot be told
 * personal or not: the detail keeps its first sentence only.
 */
function invalidJsonCut(problem: string): string {
  let parsed: { code?: unknown; detail?: unknown };
  try {
    parsed = JSON.parse(problem) as typeof parsed;
  } catch {
    // Not JSON (a JSON-RPC error, cut short): kept as scrubbed.
    return problem;
  }
  if (parsed.code !== 'invalid_json' || typeof parsed.detail !== 'string') return problem;
  return JSON.stringify({ ...parsed, detail: `${parsed.detail.split(':')[0]}.` });
}

/** The record kept for a noted request. */
export function recordOf(noted: NotedRequest, routeWords: ReadonlySet<string>): RequestRecord {
  const hidden: string[] = [];
  const path = keptPath(noted.url, routeWords, hidden);
  const body = noted.body === undefined ? null : outline(noted.body, 'body', hidden);
  return {
    id: noted.id,
    at: noted.at,
    method: noted.method,
    route: noted.route,
    path,
    status: noted.status,
    duration_ms: noted.duration_ms,
    key_id: noted.key_id,
    key_hint: noted.key_hint,
    idempotency_key: noted.idempotency_key,
    request_body: body === null || body.length <= BODY_MAX ? body : `${body.slice(0, BODY_MAX)}…`,
    problem: noted.problem === null ? null : scrubbedProblem(noted.problem, hidden),
  };
}
