import { describe, expect, it } from 'vitest';
import { renderQuotaChart } from '../../src/charts/quota-chart.js';
import { statementCsv } from '../../src/cli/usage-statement.js';
import { appliedPlan } from '../../src/domain/plans.js';
import type { UsageCountRow } from '../../src/domain/usage.js';
import { usageStatement } from '../../src/domain/usage-statement.js';

const row = (period: string, key: string, n: number, item: UsageCountRow['item'] = 'completed_assessments'): UsageCountRow => ({
  item,
  period,
  key,
  n,
});

const starter = appliedPlan({ plan: 'starter', hard_cap: false }, 'live');
const sandbox = appliedPlan({ plan: 'starter', hard_cap: false }, 'test');

function statement(live: UsageCountRow[], test: UsageCountRow[] = [], now = new Date('2026-12-02T00:00:00Z')) {
  return usageStatement({
    accountId: 'acct_default',
    month: '2026-11',
    now,
    plan: starter,
    environments: [
      { environment: 'test', plan: sandbox, rows: test },
      { environment: 'live', plan: starter, rows: live },
    ],
    keyNames: new Map([
      ['key_a', 'Backend'],
      ['key_b', '=HYPERLINK("x"), "quoted"'],
    ]),
  });
}

describe('the usage statement', () => {
  it('includes the month’s first completions up to the quota, in completion order, and bills the rest as overage to its key', () => {
    // key_b completes 600 early, key_a 500 later, key_b 100 at the same instant as key_a's (ordered by key id then).
    const written = statement([
      row('2026-11-02T10:00:00.000', 'key_b', 600),
      row('2026-11-20T10:00:00.000', 'key_b', 100),
      row('2026-11-20T10:00:00.000', 'key_a', 500),
    ]);
    const live = written.lines.filter((line) => line.environment === 'live');
    expect(live).toEqual([
      {
        environment: 'live',
        plan: 'starter',
        key_id: 'key_a',
        key_name: 'Backend',
        item: 'completed_assessments',
        quantity: 500,
        included: 400,
        overage: 100,
      },
      {
        environment: 'live',
        plan: 'starter',
        key_id: 'key_b',
        key_name: '=HYPERLINK("x"), "quoted"',
        item: 'completed_assessments',
        quantity: 700,
        included: 600,
        overage: 100,
      },
    ]);
    expect(written.totals.find((total) => total.environment === 'live' && total.item === 'completed_assessments')).toEqual({
      environment: 'live',
      plan: 'starter',
      item: 'completed_assessments',
      quantity: 1200,
      included: 1000,
      overage: 200,
    });
    expect(written).toMatchObject({
      object: 'usage_statement',
      month: '2026-11',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
      complete: true,
    });
    expect(written.plan).toEqual({ name: 'starter', monthly_quota: 1000, hard_cap: null });
  });

  it('never bills the sandbox nor situational assessments: all of them included', () => {
    const written = statement(
      [row('2026-11-02T10:00:00.000', 'key_a', 1500, 'completed_situational_assessments')],
      [row('2026-11-02T10:00:00.000', 'key_a', 5000), row('2026-11-03T10:00:00.000', '', 2)],
    );
    expect(
      written.lines.map(({ environment, plan, key_id, item, quantity, included, overage }) => [
        environment,
        plan,
        key_id,
        item,
        quantity,
        included,
        overage,
      ]),
    ).toEqual([
      ['test', 'sandbox', null, 'completed_assessments', 2, 2, 0],
      ['test', 'sandbox', 'key_a', 'completed_assessments', 5000, 5000, 0],
      ['live', 'starter', 'key_a', 'completed_situational_assessments', 1500, 1500, 0],
    ]);
    expect(written.totals.map((total) => [total.environment, total.item, total.quantity, total.overage])).toEqual([
      ['test', 'completed_assessments', 5002, 0],
      ['test', 'completed_situational_assessments', 0, 0],
      ['live', 'completed_assessments', 0, 0],
      ['live', 'completed_situational_assessments', 1500, 0],
    ]);
  });

  it('says a month still running is not complete', () => {
    expect(statement([], [], new Date('2026-11-30T23:59:59.999Z')).complete).toBe(false);
  });

  it('writes CSV with a header, quoting names and defusing what a spreadsheet would run as a formula', () => {
    const lines = statementCsv(statement([row('2026-11-02T10:00:00.000', 'key_b', 3)]));
    expect(lines[0]).toBe('month,environment,plan,kind,key_id,key_name,item,quantity,included,overage');
    expect(lines[1]).toBe(`2026-11,live,starter,line,key_b,"'=HYPERLINK(""x""), ""quoted""",completed_assessments,3,3,0`);
    expect(lines.slice(2)).toEqual([
      '2026-11,test,sandbox,total,,,completed_assessments,0,0,0',
      '2026-11,test,sandbox,total,,,completed_situational_assessments,0,0,0',
      '2026-11,live,starter,total,,,completed_assessments,3,3,0',
      '2026-11,live,starter,total,,,completed_situational_assessments,0,0,0',
    ]);
  });
});

describe('the quota chart', () => {
  it('draws the running total with a title and description, names the bars past the quota, and marks the line', () => {
    const svg = renderQuotaChart({ month: '2026-11', perDay: [400, 0, 700], days: 30, quota: 1000, hardCap: null, id: 'q' });
    expect(svg).toMatch(/^<svg class="chart" viewBox="0 0 720 220" width="100%" role="img" aria-labelledby="q-title q-desc">/);
    expect(svg).toContain('<title id="q-title">Completed assessments in 2026-11, running total by day</title>');
    expect(svg).toContain(
      '<desc id="q-desc">1,100 of 1,000 included completed assessments used so far in 2026-11, 100 past the quota.</desc>',
    );
    expect(svg).toContain('<title>2026-11-02, running total 400</title>');
    expect(svg).toContain('<title>2026-11-03, running total 1,100, 100 past the quota</title>');
    expect(svg).toContain('>quota 1,000</text>');
    expect(renderQuotaChart({ month: '2026-11', perDay: [2], days: 30, quota: null, hardCap: null, id: 'q' })).not.toContain('quota 1');
  });
});
