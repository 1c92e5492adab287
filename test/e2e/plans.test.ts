import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { monthBounds, monthOf, secondsToMonthEnd } from '../../src/domain/plans.js';
import { countsOf } from '../../src/domain/usage.js';
import type { CounterWrite } from '../../src/ports/read-models.js';
import { runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { expectProblem } from '../support/problems.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

type Body = Record<string, any>;

/** Plans (issue 46): what the operator sets, what the API applies and reports, and the month's statement. */
describe('the account’s plan', () => {
  let t: TestApp;
  let test: { id: string; raw: string };
  let live: { id: string; raw: string };
  const nature = (...args: string[]) => runCliInProcess(args, { NATURE_DATA_DIR: t.dataDir });
  const get = (url: string, raw: string) => t.app.inject({ method: 'GET', url, headers: auth(raw) });
  const post = (url: string, raw: string, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { ...auth(raw), ...headers }, ...(payload !== undefined && { payload }) });
  const policyOf = async (raw: string) => (await get('/v1/nature/items', raw)).headers['ratelimit-policy'];
  const usage = async (raw: string) => (await get('/v1/nature/usage', raw)).json() as Body;
  const subject = async (raw: string) => (await post('/v1/nature/subjects', raw, validSubject())).json().id as string;

  beforeAll(async () => {
    t = await openTestApp();
    test = await t.mint('test', 'sk');
    live = await t.mint('live', 'sk');
  });
  afterAll(async () => {
    await t.close();
  });

  it('sets the rate limit of every key in both environments, without a restart, and the usage API says which', async () => {
    // Never set: starter, the limit every key had before plans.
    expect(await policyOf(test.raw)).toBe('"default";q=200;w=2');
    expect((await nature('account', 'plan', 'show', '--json')).stdout).toContain('"plan":"starter"');

    const set = await nature('account', 'plan', 'set', 'standard', '--json');
    expect(set.status, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ plan: 'standard', hard_cap: null, changed: true, previous: 'starter' });
    for (const key of [test, live]) await eventually(async () => ((await policyOf(key.raw)) === '"default";q=500;w=2' ? true : undefined));
    const counted = await get('/v1/nature/items', live.raw);
    expect(counted.headers.ratelimit).toMatch(/^"default";r=49\d;t=[12]$/);

    const rate_limit = { per_second: 250, burst: 500 };
    expect((await usage(live.raw)).plan).toEqual({ name: 'standard', monthly_quota: 10_000, hard_cap: null, rate_limit, billed: true });
    expect((await usage(test.raw)).plan).toEqual({ name: 'sandbox', monthly_quota: null, hard_cap: null, rate_limit, billed: false });
  });

  it('records the change in the activity log as the operator’s, and a setting that changes nothing not at all', async () => {
    const [entry] = await t.accounts.activity(ACCOUNT_ID, 10);
    expect(entry).toMatchObject({
      actor: { type: 'operator' },
      action: 'plan.changed',
      target: ACCOUNT_ID,
      detail: 'the default, starter, overage metered → standard, overage metered',
    });
    const again = await nature('account', 'plan', 'set', 'standard');
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/is on standard, overage metered already: nothing changed/);
    expect(await t.accounts.activity(ACCOUNT_ID, 10)).toEqual([entry]);

    const sandbox = await nature('account', 'plan', 'set', 'sandbox');
    expect(sandbox.status).toBe(2);
    expect(sandbox.stderr).toMatch(
      /sandbox is the sandbox environment's plan, always free; the account's plan is one of starter, standard, scale/,
    );
    const unknown = await nature('account', 'plan', 'set', 'enterprise');
    expect(unknown.status).toBe(2);
    expect((await nature('account', 'plan', 'show', '--json')).stdout).toContain('"plan":"standard"');
  });

  it('past a hard cap refuses starts in production (402, Retry-After to the month’s end), never the sandbox nor open assessments', async () => {
    const openSubject = await subject(live.raw);
    const open = (await post(`/v1/nature/subjects/${openSubject}/assessments`, live.raw)).json() as Body;
    expect(open.status).toBe('created');

    expect((await nature('account', 'plan', 'set', 'starter', '--hard-cap')).status).toBe(0);
    await eventually(async () => ((await usage(live.raw)).plan.hard_cap === 1000 ? true : undefined));
    // The month's quota used up by a key's 1000 completions, as the usage projection counts them.
    await seedCompletions(t, 'key_01BULK0000000000000000000', 1000);

    const capped = await subject(live.raw);
    const earliest = secondsToMonthEnd(new Date());
    const refused = await post(`/v1/nature/subjects/${capped}/assessments`, live.raw, undefined, { 'idempotency-key': 'start-capped' });
    const latest = secondsToMonthEnd(new Date());
    const problem = expectProblem(refused, 402, 'plan_quota_exceeded');
    const resetsAt = monthBounds(monthOf(new Date())).to.toISOString();
    expect(problem).toMatchObject({ plan: 'starter', hard_cap: 1000, resets_at: resetsAt });
    expect(problem.detail).toContain("reached the plan's hard cap of 1000");
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(latest);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(earliest);
    expectProblem(await post(`/v1/nature/subjects/${capped}/assessment_links`, live.raw), 402, 'plan_quota_exceeded');
    // Nothing was started: the subject has no assessment.
    expect((await get(`/v1/nature/subjects/${capped}/assessments`, live.raw)).json().data).toEqual([]);

    // The sandbox is never capped.
    expect((await post(`/v1/nature/subjects/${await subject(test.raw)}/assessments`, test.raw)).statusCode).toBe(201);
    // An assessment started before the cap takes its answers and completes: the person is never stopped half-way.
    const done = await t.app.inject({
      method: 'PATCH',
      url: `/v1/nature/subjects/${openSubject}/assessments/${open.id}`,
      headers: auth(live.raw),
      payload: { responses: knownResponses },
    });
    expect(done.statusCode).toBe(200);
    const quota = await eventually(async () => {
      const figures = (await usage(live.raw)).quota;
      return figures.used === 1001 ? figures : undefined;
    });
    expect(quota).toMatchObject({ included: 1000, remaining: 0, overage: 1, hard_cap: 1000, capped: true, resets_at: resetsAt });

    // Uncapped, the same Idempotency-Key starts it: a 402 is never replayed.
    expect((await nature('account', 'plan', 'set', 'starter')).status).toBe(0);
    await eventually(async () => {
      const started = await post(`/v1/nature/subjects/${capped}/assessments`, live.raw, undefined, { 'idempotency-key': 'start-capped' });
      return started.statusCode === 201 ? true : undefined;
    });
  });

  it('writes the month’s statement whose totals are the usage API’s: the quota included in order, the rest overage', async () => {
    const month = monthOf(new Date());
    const { from, to } = monthBounds(month);
    const range = `/v1/nature/usage?from=${from.toISOString()}&to=${to.toISOString()}&granularity=month`;
    const [api, sandboxApi] = [(await get(range, live.raw)).json() as Body, (await get(range, test.raw)).json() as Body];

    const csv = await nature('usage', 'statement', '--month', month, '--format', 'csv');
    expect(csv.status, csv.stderr).toBe(0);
    const [header, ...records] = csv.stdout.trimEnd().split('\n');
    expect(header).toBe('month,environment,plan,kind,key_id,key_name,item,quantity,included,overage');
    const totals = Object.fromEntries(
      records
        .map((record) => record.split(','))
        .filter((fields) => fields[3] === 'total' && fields[6] === 'completed_assessments')
        .map((fields) => [
          fields[1],
          { plan: fields[2], quantity: Number(fields[7]), included: Number(fields[8]), overage: Number(fields[9]) },
        ]),
    );
    expect(totals.live).toEqual({ plan: 'starter', quantity: api.total_completed_assessments, included: 1000, overage: api.quota.overage });
    expect(totals.live.quantity).toBe(1001);
    expect(totals.test).toEqual({
      plan: 'sandbox',
      quantity: sandboxApi.total_completed_assessments,
      included: sandboxApi.total_completed_assessments,
      overage: 0,
    });
    // The live key's completion came last, past the quota: it is the overage; the bulk key's 1000 are included.
    const liveLine = records.find((record) => record.includes(`,line,${live.id},`));
    expect(liveLine).toBe(`${month},live,starter,line,${live.id},test,completed_assessments,1,0,1`);

    const json = await nature('usage', 'statement', '--month', month, '--format', 'json', '--env', 'live');
    const statement = JSON.parse(json.stdout);
    expect(statement).toMatchObject({ object: 'usage_statement', month, plan: { name: 'starter', monthly_quota: 1000, hard_cap: null } });
    expect(statement.totals.filter((total: Body) => total.environment === 'test')).toEqual([]);
    expect(statement.totals.find((total: Body) => total.item === 'completed_assessments')).toEqual({
      environment: 'live',
      plan: 'starter',
      item: 'completed_assessments',
      ...totals.live,
    });
    expect(json.stderr).toMatch(/is not over yet/);

    const wrong = await nature('usage', 'statement', '--month', '2026-13');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^nature: .*A month is YYYY-MM/);
    const misplaced = await nature('usage', 'statement', '--month', month, '--from', '2026-11-01');
    expect(misplaced.status).toBe(2);
    expect(misplaced.stderr).toMatch(/--from is for the report/);
  });
});

/**
 * `n` completions by `keyId` at this instant in production, written to the usage counters as the projection writes one
 * (month, day, hour, minute and instant rows), under a checkpoint of their own so the real projection's is untouched.
 */
async function seedCompletions(t: TestApp, keyId: string, n: number): Promise<void> {
  const positions = Array.from({ length: n }, (_, i) => BigInt(i + 1));
  const writes: CounterWrite[] = countsOf(new Date(), keyId).map(({ counter, period, key }) => ({
    collection: 'usage',
    counter,
    period,
    key,
    positions,
  }));
  await t.envs.live.readModels.commit('test-seeded-usage', 1n, writes);
}
