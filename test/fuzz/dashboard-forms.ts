import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { runCliInProcess } from '../support/cli.js';

/**
 * The dashboard's forms in the fuzz suite: each form posted by a signed-in person with a valid CSRF token, one
 * value mutated into one the form does not offer (a choice not listed, a field sent twice, left out or unknown).
 * Each answer must be a 4xx HTML page, and nothing may change: the stores the API's digest covers, and the
 * account's keys, application and activity in keys.db.
 */

type Form = Record<string, string | string[]>;

interface FieldSpec {
  /** Values the form offers; undefined for free text. */
  offered?: readonly string[];
  /** Checkboxes: none, one or several of the offered values. */
  multi?: boolean;
  /** May be left out (checkboxes, the sign-in form's next page). */
  optional?: boolean;
}

interface DashboardForm {
  route: string;
  action: (refs: DashboardRefs) => string;
  valid: Form;
  fields: Record<string, FieldSpec>;
}

export interface DashboardRefs {
  /** An active sandbox key (found in keys.db). */
  keyId: string;
  endpointId: string;
  eventId: string;
}

const NO_MEMBER = 'usr_01M00000000000000000000000';
const NO_INVITATION = 'inv_01M00000000000000000000000';

const forms: DashboardForm[] = [
  {
    route: 'POST /dashboard/keys',
    action: () => '/dashboard/keys',
    valid: { name: 'Fuzz', environment: 'test', type: 'sk', scopes: ['nature:read'], origins: '' },
    fields: {
      name: {},
      environment: { offered: ['test', 'live'] },
      type: { offered: ['sk', 'pk'] },
      scopes: { offered: ['nature:read', 'nature:write'], multi: true, optional: true },
      origins: {},
    },
  },
  {
    route: 'POST /dashboard/keys/:id/rotate',
    action: (refs) => `/dashboard/keys/${refs.keyId}/rotate`,
    valid: { expires_in: 'now' },
    fields: { expires_in: { offered: ['now', '1h', '24h', '3d', '7d'] } },
  },
  { route: 'POST /dashboard/keys/:id/revoke', action: (refs) => `/dashboard/keys/${refs.keyId}/revoke`, valid: {}, fields: {} },
  {
    route: 'POST /dashboard/production',
    action: () => '/dashboard/production',
    valid: { organisation: 'Fuzz', intended_use: 'Fuzzing', expected_monthly_completions: '10' },
    fields: { organisation: {}, intended_use: {}, expected_monthly_completions: {} },
  },
  {
    route: 'POST /dashboard/:segment/webhooks',
    action: () => '/dashboard/sandbox/webhooks',
    valid: { url: 'http://127.0.0.1:9/fuzz', enabled_events: 'nature.assessment.completed' },
    fields: {
      url: {},
      enabled_events: { offered: ['nature.assessment.completed', 'nature.profile.updated'], multi: true, optional: true },
    },
  },
  {
    route: 'POST /dashboard/:segment/webhooks/:id',
    action: (refs) => `/dashboard/sandbox/webhooks/${refs.endpointId}`,
    valid: { url: 'http://127.0.0.1:9/fuzz', enabled_events: 'nature.assessment.completed' },
    fields: {
      url: {},
      enabled_events: { offered: ['nature.assessment.completed', 'nature.profile.updated'], multi: true, optional: true },
    },
  },
  {
    route: 'POST /dashboard/:segment/webhooks/:id/status',
    action: (refs) => `/dashboard/sandbox/webhooks/${refs.endpointId}/status`,
    valid: { status: 'disabled' },
    fields: { status: { offered: ['enabled', 'disabled'] } },
  },
  {
    route: 'POST /dashboard/:segment/webhooks/:id/rotate',
    action: (refs) => `/dashboard/sandbox/webhooks/${refs.endpointId}/rotate`,
    valid: { overlap: '3600' },
    fields: { overlap: { offered: ['0', '3600', '86400', '604800'] } },
  },
  {
    route: 'POST /dashboard/:segment/webhooks/:id/test',
    action: (refs) => `/dashboard/sandbox/webhooks/${refs.endpointId}/test`,
    valid: {},
    fields: {},
  },
  {
    route: 'POST /dashboard/:segment/webhooks/:id/replay',
    action: (refs) => `/dashboard/sandbox/webhooks/${refs.endpointId}/replay`,
    valid: { since: '24' },
    fields: { since: { offered: ['1', '24', '168'] } },
  },
  {
    route: 'POST /dashboard/:segment/webhooks/:id/delete',
    action: (refs) => `/dashboard/sandbox/webhooks/${refs.endpointId}/delete`,
    valid: { confirm: 'yes' },
    fields: { confirm: { offered: ['yes'] } },
  },
  {
    route: 'POST /dashboard/:segment/events/:id/redeliver',
    action: (refs) => `/dashboard/sandbox/events/${refs.eventId}/redeliver`,
    valid: {},
    fields: { endpoint_id: { offered: [], optional: true } },
  },
  {
    route: 'POST /dashboard/members',
    action: () => '/dashboard/members',
    valid: { email: 'fuzz-invitee@example.com', role: 'viewer' },
    fields: { email: {}, role: { offered: ['admin', 'developer', 'viewer'] } },
  },
  // The member and invitation named need not exist: a form's values are checked before anything is looked up.
  {
    route: 'POST /dashboard/members/invitations/:id/revoke',
    action: () => `/dashboard/members/invitations/${NO_INVITATION}/revoke`,
    valid: {},
    fields: {},
  },
  {
    route: 'POST /dashboard/members/:id/role',
    action: () => `/dashboard/members/${NO_MEMBER}/role`,
    valid: { role: 'developer' },
    fields: { role: { offered: ['admin', 'developer', 'viewer'] } },
  },
  ...(['remove', 'transfer'] as const).map((change) => ({
    route: `POST /dashboard/members/:id/${change}`,
    action: () => `/dashboard/members/${NO_MEMBER}/${change}`,
    valid: { confirm: 'yes' },
    fields: { confirm: { offered: ['yes'] } },
  })),
  { route: 'POST /dashboard/sign-out', action: () => '/dashboard/sign-out', valid: {}, fields: {} },
  { route: 'POST /dashboard/security/two-factor/start', action: () => '/dashboard/security/two-factor/start', valid: {}, fields: {} },
  {
    route: 'POST /dashboard/security/two-factor/confirm',
    action: () => '/dashboard/security/two-factor/confirm',
    valid: { code: '000000' },
    fields: { code: {} },
  },
  {
    route: 'POST /dashboard/security/recovery-codes',
    action: () => '/dashboard/security/recovery-codes',
    valid: { password: 'fuzz passphrase, long enough', code: '000000' },
    fields: { password: {}, code: {} },
  },
  {
    route: 'POST /dashboard/security/two-factor/disable',
    action: () => '/dashboard/security/two-factor/disable',
    valid: { password: 'fuzz passphrase, long enough', code: '000000' },
    fields: { password: {}, code: {} },
  },
  {
    route: 'POST /dashboard/security/requirement',
    action: () => '/dashboard/security/requirement',
    // Stopping the requirement asks for the password and a code again; requiring it (`yes`) is a form without them.
    valid: { required: 'no', password: 'fuzz passphrase, long enough', code: '000000' },
    fields: { required: { offered: ['no'] }, password: {}, code: {} },
  },
];

/** One mutation of a valid form into one that offers a value the form does not: its variant names the defect. */
function mutations(form: DashboardForm): fc.Arbitrary<{ body: Form; variant: string }> {
  const junk = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('__proto__', 'constructor', 'live ', 'TEST', '-1', '1e3', '%00'));
  const choices: fc.Arbitrary<{ body: Form; variant: string }>[] = [
    fc
      .tuple(fc.constantFrom('owner', '__proto__', 'constructor', 'environment[]', '_csrf2'), junk)
      .filter(([name]) => !(name in form.fields))
      .map(([name, value]) => ({ body: { ...form.valid, [name]: value }, variant: `unknown field ${name}` })),
  ];
  for (const [name, spec] of Object.entries(form.fields)) {
    if (spec.offered !== undefined) {
      const outside = junk.filter((value) => !spec.offered!.includes(value));
      choices.push(outside.map((value) => ({ body: { ...form.valid, [name]: value }, variant: `${name} not offered` })));
      if (spec.multi)
        choices.push(
          outside.map((value) => ({ body: { ...form.valid, [name]: [spec.offered![0]!, value] }, variant: `${name} one not offered` })),
        );
    }
    if (!spec.multi) choices.push(junk.map((value) => ({ body: { ...form.valid, [name]: [value, value] }, variant: `${name} twice` })));
    if (!spec.optional) {
      const { [name]: _left, ...rest } = form.valid;
      choices.push(fc.constant({ body: rest, variant: `${name} missing` }));
    }
  }
  return fc.oneof(...choices);
}

/** A digest of what the dashboard's forms change in keys.db: keys, members, invitations, the application, the activity and two-factor sign-in. */
function accountDigest(dataDir: string): string {
  const db = new Database(join(dataDir, 'keys.db'), { readonly: true, fileMustExist: true });
  try {
    const hash = createHash('sha256');
    for (const table of ['api_keys', 'users', 'invitations', 'applications', 'activity', 'two_factor', 'two_factor_requirements'])
      for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).raw().iterate())
        hash.update(`${table}:${JSON.stringify(row)}\n`);
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

const email = 'fuzz-owner@example.com';
const password = 'fuzz passphrase, long enough';

/** The person who sends the forms, made with the operator's command while the suite seeds (it adds a data key). */
export async function dashboardPerson(dataDir: string): Promise<void> {
  const made = await runCliInProcess(['users', 'create', '--email', email, '--password-stdin'], { NATURE_DATA_DIR: dataDir }, password);
  if (made.status !== 0) throw new Error(`fuzz set-up: nature users create failed: ${made.stderr}`);
}

export interface DashboardFuzzOutcome {
  route: string;
  variant: string;
  problems: string[];
  request: string;
  response: string;
}

/**
 * Runs one property per dashboard form against the server at `url` on `dataDir`, signed in as dashboardPerson's. `storeDigest` is the API's digest of the other stores, after they settle.
 */
export async function fuzzDashboardForms(options: {
  url: string;
  dataDir: string;
  refs: Omit<DashboardRefs, 'keyId'>;
  runs: number;
  seed: number;
  only?: string | undefined;
  storeDigest: () => Promise<string>;
  count: (status: string) => void;
}): Promise<DashboardFuzzOutcome[]> {
  const chosen = forms.filter((form) => options.only === undefined || `dashboard form ${form.route}`.includes(options.only));
  if (chosen.length === 0) return [];
  const email = `fuzz-${options.seed}@example.com`;
  const password = 'fuzz passphrase, long enough';
  const made = await runCliInProcess(
    ['users', 'create', '--email', email, '--password-stdin'],
    { NATURE_DATA_DIR: options.dataDir },
    password,
  );
  if (made.status !== 0) throw new Error(`fuzz set-up: nature users create failed: ${made.stderr}`);
  const cookies = new Map<string, string>();
  const send = async (method: string, path: string, body?: URLSearchParams) => {
    const response = await fetch(`${options.url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body !== undefined && { body }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      cookies.set(name!, value!);
    }
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
  };
  const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const signIn = await send('GET', '/dashboard/sign-in');
  const signedIn = await send('POST', '/dashboard/sign-in', new URLSearchParams({ email, password, _csrf: csrfOf(signIn.body) }));
  if (signedIn.status !== 303) throw new Error(`fuzz set-up: dashboard sign-in answered ${signedIn.status}`);
  const csrf = csrfOf((await send('GET', '/dashboard/keys')).body);
  const keys = new Database(join(options.dataDir, 'keys.db'), { readonly: true, fileMustExist: true });
  const key = keys.prepare("SELECT id FROM api_keys WHERE environment = 'test' AND revoked_at IS NULL LIMIT 1").get() as { id: string };
  keys.close();
  const refs: DashboardRefs = { ...options.refs, keyId: key.id };

  const outcomes: DashboardFuzzOutcome[] = [];
  for (const form of chosen) {
    let failed: DashboardFuzzOutcome | undefined;
    const property = fc.asyncProperty(mutations(form), async ({ body, variant }) => {
      const before = `${await options.storeDigest()} ${accountDigest(options.dataDir)}`;
      const sent = new URLSearchParams({ _csrf: csrf, _once: randomBytes(16).toString('base64url') });
      for (const [name, value] of Object.entries(body)) for (const each of [value].flat()) sent.append(name, each);
      const answer = await send('POST', form.action(refs), sent);
      options.count(String(answer.status));
      const problems: string[] = [];
      if (answer.status >= 500) problems.push(`a ${answer.status} (server error)`);
      else if (answer.status < 400) problems.push(`accepted (${answer.status}) a value the form does not offer`);
      if (!answer.type.startsWith('text/html')) problems.push(`answered ${answer.type || 'no content type'}, not a page`);
      const after = `${await options.storeDigest()} ${accountDigest(options.dataDir)}`;
      if (after !== before) problems.push('the stores changed');
      if (problems.length === 0) return true;
      failed = {
        route: form.route,
        variant,
        problems,
        request: `POST ${form.action(refs)}\nbody: ${sent.toString().replace(csrf, '<csrf>')}`,
        response: `${answer.status}; ${answer.type}\nbody: ${answer.body.slice(0, 600)}`,
      };
      throw new Error(problems.join('\n'));
    });
    const details = await fc.check(property, { numRuns: options.runs, seed: options.seed });
    if (details.failed && failed !== undefined) outcomes.push(failed);
  }
  return outcomes;
}
