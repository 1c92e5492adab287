import { Argument, Command, InvalidArgumentError } from 'commander';
import { currentPlan, describeChoice, setAccountPlan } from '../commands/account-plans.js';
import { ACCOUNT_ID } from '../domain/accounts.js';
import {
  type AccountPlanName,
  accountPlanNames,
  appliedPlan,
  isAccountPlanName,
  PLAN_REFRESH_MS,
  type PlanChoice,
} from '../domain/plans.js';
import type { AccountStore } from '../ports/account-store.js';
import type { AccountStores } from './accounts.js';
import type { Output } from './keys.js';
import { table } from './table.js';

const PLANS = accountPlanNames.join(', ');

function planName(value: string): AccountPlanName {
  if (value === 'sandbox')
    throw new InvalidArgumentError(`sandbox is the sandbox environment's plan, always free; the account's plan is one of ${PLANS}.`);
  if (!isAccountPlanName(value)) throw new InvalidArgumentError(`The account's plan is one of ${PLANS}.`);
  return value;
}

/** The plan as the operator reads it: its figures from the plans table (domain/plans.ts). */
function describePlan(choice: PlanChoice & { set_at: string | null }) {
  const { monthly_quota, hard_cap, rate_limit } = appliedPlan(choice, 'live');
  return { account_id: ACCOUNT_ID, plan: choice.plan, monthly_quota, hard_cap, rate_limit, set_at: choice.set_at };
}

export function accountCommand(stores: Pick<AccountStores, 'open'>, output: Output): Command {
  const account = new Command('account').description("the account's settings that only the operator changes");
  const plan = account.command('plan').description("the account's plan: its rate limits and monthly quota of completed assessments");
  plan
    .command('set')
    .description(
      `put the account on a plan (${PLANS}); rate limits follow it in both environments within ${PLAN_REFRESH_MS / 1000} s on every server`,
    )
    .addArgument(new Argument('<plan>', `one of ${PLANS}`).argParser(planName))
    .option('--hard-cap', 'past the monthly quota, starting an assessment in production answers 402 (without it the overage is metered)')
    .option('--json', 'print the plan as one JSON object')
    .action((name: AccountPlanName, options: { hardCap?: boolean; json?: boolean }) =>
      setPlan(stores, output, { plan: name, hard_cap: options.hardCap === true }, options.json === true),
    );
  plan
    .command('show')
    .description("the account's plan: quota, hard cap, rate limit, and when it was set (never: the default, starter)")
    .option('--json', 'print one JSON object')
    .action((options: { json?: boolean }) => showPlan(stores, output, options.json === true));
  return account;
}

async function withAccounts<T>(stores: Pick<AccountStores, 'open'>, work: (accounts: AccountStore) => Promise<T>): Promise<T> {
  const accounts = await stores.open({ create: false });
  try {
    return await work(accounts);
  } finally {
    await accounts.close();
  }
}

function printPlan(output: Output, shown: ReturnType<typeof describePlan>): void {
  const fields: [string, string][] = [
    ['account_id', shown.account_id],
    ['plan', shown.plan],
    ['monthly_quota', `${shown.monthly_quota} completed assessments (UTC month)`],
    ['hard_cap', shown.hard_cap === null ? 'none: overage metered' : `${shown.hard_cap}: past it, starts answer 402`],
    ['rate_limit', `${shown.rate_limit.per_second} requests/s per key, burst ${shown.rate_limit.burst}, in both environments`],
    ['set_at', shown.set_at ?? 'never: the default plan'],
  ];
  for (const line of table(undefined, fields)) output.out(line);
}

function setPlan(stores: Pick<AccountStores, 'open'>, output: Output, choice: PlanChoice, json: boolean): Promise<void> {
  return withAccounts(stores, async (accounts) => {
    const { before, changed } = await setAccountPlan(accounts, choice, { type: 'operator' }, new Date());
    const shown = describePlan(await currentPlan(accounts));
    if (json) return output.out(JSON.stringify({ ...shown, changed, previous: before.plan, previous_hard_cap: before.hard_cap }));
    if (!changed) {
      output.err(`nature: ${ACCOUNT_ID} is on ${describeChoice(choice)} already: nothing changed`);
      return printPlan(output, shown);
    }
    output.err(`${ACCOUNT_ID}: ${describeChoice(before)} → ${describeChoice(choice)}; servers apply it within ${PLAN_REFRESH_MS / 1000} s`);
    printPlan(output, shown);
  });
}

function showPlan(stores: Pick<AccountStores, 'open'>, output: Output, json: boolean): Promise<void> {
  return withAccounts(stores, async (accounts) => {
    const shown = describePlan(await currentPlan(accounts));
    if (json) return output.out(JSON.stringify(shown));
    printPlan(output, shown);
  });
}
