import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ACCOUNT_ID } from '../domain/accounts.js';
import { DEFAULT_PLAN_CHOICE, PLAN_REFRESH_MS, type PlanChoice, type RateLimitOverride, rateLimitOf } from '../domain/plans.js';
import type { AccountStore } from '../ports/account-store.js';
import { registerPlanQuota } from './plan-quota.js';
import { createRateLimiter, type RateLimiter, type RateLimitSettings } from './rate-limit.js';

/** The account's plan as this server applies it: read at start, then again every PLAN_REFRESH_MS. */
export interface AccountPlanSource {
  /** Each request counted against the plan's rate limit (rate-limit.ts). */
  limiter: RateLimiter;
  /** Synchronous: the rate limiter asks on every request. */
  current(): PlanChoice;
  /** NATURE_RATE_LIMIT_*: figures that replace the plan's, where set. */
  override: RateLimitOverride;
  /** The rate limit in force: the plan's, or the override's. */
  rateLimit(): RateLimitSettings;
}

interface PlanSettings {
  accounts: Pick<AccountStore, 'plan'> | undefined;
  logger: Logger;
  override: RateLimitOverride;
  everyMs?: number;
}

/** Everything the account's plan does to the API: its rate limit on every request, and its hard cap on starts (402). */
export async function applyAccountPlan(app: FastifyInstance, settings: PlanSettings & { clock: () => Date }): Promise<AccountPlanSource> {
  const plans = await watchAccountPlan(app, settings);
  registerPlanQuota(app, plans, settings.clock);
  return plans;
}

/**
 * Reads the plan from the account store at start and every `everyMs` after, so that `nature account plan set` (another
 * process, on the store every replica shares) reaches every replica within that time, without a restart. A read that
 * fails is logged once and the plan known keeps applying; the next read tries again. Without an account store (an app
 * built without one), the default plan. The reads stop when `app` closes.
 */
export async function watchAccountPlan(
  app: FastifyInstance,
  { accounts, logger, override, everyMs = PLAN_REFRESH_MS }: PlanSettings,
): Promise<AccountPlanSource> {
  let choice: PlanChoice = DEFAULT_PLAN_CHOICE;
  const rateLimit = () => {
    const { per_second, burst } = rateLimitOf(choice, override);
    return { perSecond: per_second, burst };
  };
  const limiter = createRateLimiter(rateLimit);
  if (accounts === undefined) return { limiter, current: () => choice, override, rateLimit };
  const read = async () => {
    const record = await accounts.plan(ACCOUNT_ID);
    const next = record === undefined ? DEFAULT_PLAN_CHOICE : { plan: record.plan, hard_cap: record.hard_cap };
    if (next.plan !== choice.plan || next.hard_cap !== choice.hard_cap) logger.info({ plan: next }, "the account's plan applies");
    choice = next;
  };
  await read();
  let reading: Promise<void> | undefined;
  let failing = false;
  // One read at a time: a tick while a slow read runs is skipped.
  const tick = () => {
    reading ??= read()
      .then(() => {
        failing = false;
      })
      .catch((error: unknown) => {
        if (!failing) logger.warn({ err: error }, "could not read the account's plan; the one known keeps applying");
        failing = true;
      })
      .finally(() => {
        reading = undefined;
      });
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await reading;
  });
  return {
    limiter,
    current: () => choice,
    override,
    rateLimit,
  };
}
