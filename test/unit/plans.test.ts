import { describe, expect, it } from 'vitest';
import {
  accountPlanNames,
  appliedPlan,
  DEFAULT_PLAN_CHOICE,
  monthBounds,
  monthOf,
  parseMonth,
  planNames,
  plans,
  quotaFigures,
  rateLimitOf,
  secondsToMonthEnd,
} from '../../src/domain/plans.js';

describe('the plans table', () => {
  it('has sandbox (free, no quota, the account’s rate limit) and three production plans, each a step up', () => {
    expect(planNames).toEqual(['sandbox', 'starter', 'standard', 'scale']);
    expect(plans.sandbox).toEqual({
      name: 'sandbox',
      environment: 'test',
      rate_limit: null,
      monthly_quota: null,
      hard_cap: null,
      billed: false,
    });
    const paid = accountPlanNames.map((name) => plans[name]);
    expect(paid.map((plan) => [plan.name, plan.rate_limit, plan.monthly_quota, plan.hard_cap, plan.billed])).toEqual([
      ['starter', { per_second: 100, burst: 200 }, 1000, null, true],
      ['standard', { per_second: 250, burst: 500 }, 10_000, null, true],
      ['scale', { per_second: 1000, burst: 2000 }, 100_000, null, true],
    ]);
    // Every window is 2 s (burst / per second), as the RateLimit-Policy header's w says.
    for (const plan of paid) expect(plan.rate_limit!.burst / plan.rate_limit!.per_second).toBe(2);
  });

  it('puts an account that never chose on starter, whose rate limit is the one every key had before plans', () => {
    expect(DEFAULT_PLAN_CHOICE).toEqual({ plan: 'starter', hard_cap: false });
    expect(rateLimitOf(DEFAULT_PLAN_CHOICE)).toEqual({ per_second: 100, burst: 200 });
  });

  it('applies the account’s rate limit in both environments; the sandbox keeps its own quota (none)', () => {
    const choice = { plan: 'standard', hard_cap: true } as const;
    expect(appliedPlan(choice, 'live')).toEqual({
      name: 'standard',
      rate_limit: { per_second: 250, burst: 500 },
      monthly_quota: 10_000,
      hard_cap: 10_000,
      billed: true,
    });
    expect(appliedPlan(choice, 'test')).toEqual({
      name: 'sandbox',
      rate_limit: { per_second: 250, burst: 500 },
      monthly_quota: null,
      hard_cap: null,
      billed: false,
    });
    expect(appliedPlan({ plan: 'standard', hard_cap: false }, 'live').hard_cap).toBeNull();
  });

  it('lets NATURE_RATE_LIMIT_* replace each figure it sets, and only that one', () => {
    expect(rateLimitOf({ plan: 'scale', hard_cap: false }, { perSecond: 1 })).toEqual({ per_second: 1, burst: 2000 });
    expect(rateLimitOf({ plan: 'scale', hard_cap: false }, { perSecond: 5, burst: 10 })).toEqual({ per_second: 5, burst: 10 });
  });
});

describe('the month against the quota', () => {
  const starter = appliedPlan({ plan: 'starter', hard_cap: false }, 'live');
  const capped = appliedPlan({ plan: 'starter', hard_cap: true }, 'live');

  it('counts what is left, then the overage, and resets at the next month', () => {
    expect(quotaFigures(starter, '2026-11', 999)).toEqual({
      month: '2026-11',
      included: 1000,
      used: 999,
      remaining: 1,
      overage: 0,
      hard_cap: null,
      capped: false,
      resets_at: '2026-12-01T00:00:00.000Z',
    });
    expect(quotaFigures(starter, '2026-11', 1234)).toMatchObject({ remaining: 0, overage: 234, capped: false });
    expect(quotaFigures(capped, '2026-12', 999)).toMatchObject({ capped: false, resets_at: '2027-01-01T00:00:00.000Z' });
    expect(quotaFigures(capped, '2026-12', 1000)).toMatchObject({ capped: true, overage: 0, hard_cap: 1000 });
  });

  it('never bills nor caps the sandbox', () => {
    const sandbox = appliedPlan({ plan: 'starter', hard_cap: true }, 'test');
    expect(quotaFigures(sandbox, '2026-11', 5_000_000)).toMatchObject({ included: null, remaining: null, overage: 0, capped: false });
  });
});

describe('UTC months', () => {
  it('names the month an instant falls in, in UTC whatever the local zone', () => {
    expect(monthOf(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(monthOf(new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
    // 00:30 on 1 December in Paris is still November in UTC.
    expect(monthOf(new Date('2026-12-01T00:30:00+01:00'))).toBe('2026-11');
  });

  it('bounds a month from midnight UTC on its first day to the next month’s, over year ends and leap Februaries', () => {
    expect(monthBounds('2026-12')).toEqual({ from: new Date('2026-12-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') });
    expect(monthBounds('2028-02').to.getTime() - monthBounds('2028-02').from.getTime()).toBe(29 * 86_400_000);
    expect(monthBounds('2026-02').to.getTime() - monthBounds('2026-02').from.getTime()).toBe(28 * 86_400_000);
  });

  it('takes YYYY-MM from 2000 to 2099 only', () => {
    expect(parseMonth('2026-11')).toBe('2026-11');
    for (const bad of ['2026-13', '2026-00', '2026-1', '26-11', '2026-11-01', '1999-12', '2100-01', ' 2026-11'])
      expect(parseMonth(bad)).toBeUndefined();
  });
});

describe('Retry-After at the month’s end', () => {
  it('is the whole seconds to midnight UTC on the first of the next month, at least 1', () => {
    expect(secondsToMonthEnd(new Date('2026-11-30T23:59:00.000Z'))).toBe(60);
    // Part of a second left still waits a whole second: a retry never lands before the month ends.
    expect(secondsToMonthEnd(new Date('2026-11-30T23:59:59.001Z'))).toBe(1);
    expect(secondsToMonthEnd(new Date('2026-11-30T23:59:59.999Z'))).toBe(1);
    // The first instant of a month waits the whole month: 30 days for November, 31 for December.
    expect(secondsToMonthEnd(new Date('2026-11-01T00:00:00.000Z'))).toBe(30 * 86_400);
    expect(secondsToMonthEnd(new Date('2026-12-31T12:00:00.000Z'))).toBe(12 * 3600);
  });
});
