import type { Actor } from './accounts.js';
import type { Environment } from './api-keys.js';

/**
 * The plans (specification v1.1, "Team and plans"), as data: this table is what the rate limiter, the quota, the
 * usage API, the statement, the dashboard and the docs (/docs/usage) all read.
 *
 * The account's plan is one of the production plans: the operator sets it (`nature account plan set`), and until
 * then it is `starter`, whose rate limit is the one every key had before plans (100 requests/s, a burst of 200),
 * so a deployment that never sets a plan works as it did. The sandbox environment is always metered on `sandbox`:
 * free, without a quota, never capped. Rate limits follow the account's plan in both environments (the contract:
 * the same limit in sandbox and production), so `sandbox` has none of its own.
 */
export const planNames = ['sandbox', 'starter', 'standard', 'scale'] as const;
export type PlanName = (typeof planNames)[number];

/** The plans an account may be on: what the operator sets. */
export const accountPlanNames = ['starter', 'standard', 'scale'] as const satisfies readonly PlanName[];
export type AccountPlanName = (typeof accountPlanNames)[number];

export interface RateLimit {
  /** Requests per second each API key may send, on average. */
  per_second: number;
  /** Requests a key may send at once: the window is burst / per_second seconds. */
  burst: number;
}

export interface Plan {
  name: PlanName;
  /** Its environment: `sandbox` meters the sandbox, the others production. */
  environment: Environment;
  /** Null for `sandbox`: the account's plan's, the same in both environments. */
  rate_limit: RateLimit | null;
  /** Completed assessments included per calendar month (UTC); null: no quota. */
  monthly_quota: number | null;
  /**
   * The completions past which no assessment starts (402 plan_quota_exceeded) unless the operator asks for one
   * (`--hard-cap`, which caps at the quota); null: past the quota, production keeps working and the overage is metered.
   */
  hard_cap: number | null;
  /** Whether its completions are billed: the sandbox is always free. */
  billed: boolean;
}

const paid = (name: AccountPlanName, per_second: number, burst: number, monthly_quota: number): Plan => ({
  name,
  environment: 'live',
  rate_limit: { per_second, burst },
  monthly_quota,
  hard_cap: null,
  billed: true,
});

/** The one table. Every window is 2 s (burst / per second), so a key's burst is two seconds of its rate. */
export const plans: Readonly<Record<PlanName, Plan>> = {
  sandbox: { name: 'sandbox', environment: 'test', rate_limit: null, monthly_quota: null, hard_cap: null, billed: false },
  starter: paid('starter', 100, 200, 1_000),
  standard: paid('standard', 250, 500, 10_000),
  scale: paid('scale', 1_000, 2_000, 100_000),
};

/** The account's plan as the operator set it (kept in the account store, beside the keys). */
export interface AccountPlanRecord {
  account_id: string;
  plan: AccountPlanName;
  /** Whether the plan's quota is a hard cap: past it, no assessment starts in production. */
  hard_cap: boolean;
  set_at: string;
  set_by: Actor;
}

/** What an account is on: the record, or the default while the operator never set one. */
export type PlanChoice = Pick<AccountPlanRecord, 'plan' | 'hard_cap'>;

export const DEFAULT_PLAN_CHOICE: PlanChoice = { plan: 'starter', hard_cap: false };

/** How often each server reads the account's plan again: a change applies on every replica within this. */
export const PLAN_REFRESH_MS = 2000;

export const isAccountPlanName = (name: string): name is AccountPlanName => (accountPlanNames as readonly string[]).includes(name);

/** NATURE_RATE_LIMIT_PER_SECOND / _BURST: when set, each replaces its figure of every plan (load tests, the crash suite). */
export interface RateLimitOverride {
  perSecond?: number | undefined;
  burst?: number | undefined;
}

/** The plan as it applies to one environment: its figures, the account's rate limit and its cap. */
export interface AppliedPlan {
  name: PlanName;
  rate_limit: RateLimit;
  monthly_quota: number | null;
  hard_cap: number | null;
  billed: boolean;
}

/** The rate limit every key of the account has, in both environments. */
export function rateLimitOf(choice: PlanChoice, override: RateLimitOverride = {}): RateLimit {
  const own = plans[choice.plan].rate_limit!;
  return { per_second: override.perSecond ?? own.per_second, burst: override.burst ?? own.burst };
}

/** The plan an environment is metered on: the account's in production, `sandbox` in the sandbox. */
export function appliedPlan(choice: PlanChoice, environment: Environment, override: RateLimitOverride = {}): AppliedPlan {
  const plan = environment === 'live' ? plans[choice.plan] : plans.sandbox;
  const capped = environment === 'live' && choice.hard_cap ? plan.monthly_quota : plan.hard_cap;
  return {
    name: plan.name,
    rate_limit: rateLimitOf(choice, override),
    monthly_quota: plan.monthly_quota,
    hard_cap: capped,
    billed: plan.billed,
  };
}

/** A month's figures against the plan: `used` completions, of which those past the quota are the overage. */
export interface QuotaFigures {
  /** `2026-11`, UTC. */
  month: string;
  included: number | null;
  used: number;
  /** Null without a quota. */
  remaining: number | null;
  overage: number;
  hard_cap: number | null;
  /** Whether the hard cap is reached: no assessment starts until `resets_at`. */
  capped: boolean;
  /** The start of the next month, when the count starts again. */
  resets_at: string;
}

export function quotaFigures(plan: AppliedPlan, month: string, used: number): QuotaFigures {
  const included = plan.monthly_quota;
  return {
    month,
    included,
    used,
    remaining: included === null ? null : Math.max(0, included - used),
    overage: included === null || !plan.billed ? 0 : Math.max(0, used - included),
    hard_cap: plan.hard_cap,
    capped: plan.hard_cap !== null && used >= plan.hard_cap,
    resets_at: monthBounds(month).to.toISOString(),
  };
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `2026-11`: the UTC month an instant falls in. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** A month as `YYYY-MM`, 2000 to 2099 (the years a usage range can name); undefined for anything else. */
export function parseMonth(text: string): string | undefined {
  const match = MONTH.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  return year >= 2000 && year <= 2099 ? text : undefined;
}

/** [from, to): midnight UTC of its first day, and of the next month's. */
export function monthBounds(month: string): { from: Date; to: Date } {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7)) - 1;
  return { from: new Date(Date.UTC(year, index, 1)), to: new Date(Date.UTC(year, index + 1, 1)) };
}

/** Whole seconds from `now` to the end of its UTC month (at least 1): a capped caller's Retry-After. */
export function secondsToMonthEnd(now: Date): number {
  return Math.max(1, Math.ceil((monthBounds(monthOf(now)).to.getTime() - now.getTime()) / 1000));
}
