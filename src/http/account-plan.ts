import type { Logger } from 'pino';
import { ACCOUNT_ID } from '../domain/accounts.js';
import { DEFAULT_PLAN_CHOICE, PLAN_REFRESH_MS, type PlanChoice } from '../domain/plans.js';
import type { AccountStore } from '../ports/account-store.js';

/** The account's plan as this server applies it: read at start, then again every PLAN_REFRESH_MS. */
export interface AccountPlanSource {
  /** Synchronous: the rate limiter asks on every request. */
  current(): PlanChoice;
  stop(): Promise<void>;
}

/**
 * Reads the plan from the account store at start and every `everyMs` after, so that `nature account plan set` (another
 * process, on the store every replica shares) reaches every replica within that time, without a restart. A read that
 * fails is logged once and the plan known keeps applying; the next read tries again. Without an account store (an app
 * built without one), the default plan.
 */
export async function watchAccountPlan(
  accounts: Pick<AccountStore, 'plan'> | undefined,
  logger: Logger,
  everyMs = PLAN_REFRESH_MS,
): Promise<AccountPlanSource> {
  let choice: PlanChoice = DEFAULT_PLAN_CHOICE;
  if (accounts === undefined) return { current: () => choice, stop: async () => {} };
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
  return {
    current: () => choice,
    async stop() {
      clearInterval(timer);
      await reading;
    },
  };
}
