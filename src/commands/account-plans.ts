import { ACCOUNT_ID, type Actor, activity } from '../domain/accounts.js';
import { type AccountPlanRecord, DEFAULT_PLAN_CHOICE, type PlanChoice, plans } from '../domain/plans.js';
import type { AccountStore } from '../ports/account-store.js';

/** The account's plan: as the operator set it, or the default (`set_at` null) while never set. */
export async function currentPlan(accounts: Pick<AccountStore, 'plan'>): Promise<PlanChoice & { set_at: string | null }> {
  const record = await accounts.plan(ACCOUNT_ID);
  return record === undefined
    ? { ...DEFAULT_PLAN_CHOICE, set_at: null }
    : { plan: record.plan, hard_cap: record.hard_cap, set_at: record.set_at };
}

/** `standard, hard cap at 10000`: a plan and its cap in a few words (the activity entry's detail). */
export const describeChoice = ({ plan, hard_cap }: PlanChoice): string =>
  hard_cap ? `${plan}, hard cap at ${plans[plan].monthly_quota} completions a month` : `${plan}, overage metered`;

/**
 * Puts the account on `choice`, with the activity entry naming the change (`plan.changed`, from what to what) in the
 * same write. Answers the plan it was on before, and whether anything changed (nothing, and no entry, when it is on
 * that plan with that cap already).
 */
export async function setAccountPlan(
  accounts: Pick<AccountStore, 'plan' | 'setPlan'>,
  choice: PlanChoice,
  actor: Actor,
  now: Date,
): Promise<{ before: PlanChoice; changed: boolean }> {
  const before = await currentPlan(accounts);
  const record: AccountPlanRecord = { account_id: ACCOUNT_ID, ...choice, set_at: now.toISOString(), set_by: actor };
  const detail = `${before.set_at === null ? 'the default, ' : ''}${describeChoice(before)} → ${describeChoice(choice)}`;
  const changed = await accounts.setPlan(record, activity(actor, 'plan.changed', ACCOUNT_ID, detail, now));
  return { before, changed };
}
