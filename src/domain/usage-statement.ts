import { compareCodeUnits as compare } from '../support/code-units.js';
import { type Environment, environments } from './api-keys.js';
import { type AppliedPlan, monthBounds, type PlanName } from './plans.js';
import { type MeteredItem, meteredItems, type UsageCountRow } from './usage.js';

/**
 * A month's statement, as a billing system imports it: one line per environment, key and metered item with its
 * completions, split into those the plan includes and the overage, and the totals per environment and item.
 *
 * The quota is the account's, not a key's: the month's completed assessments in production are taken in the order
 * they completed (to the millisecond, then by key id), the first `monthly_quota` of them are included and the rest
 * are overage, each billed to its key. The sandbox is never billed (everything included), and no plan has a quota
 * of situational assessments (metered, all included).
 */
export interface StatementLine {
  environment: Environment;
  plan: PlanName;
  /** Null for a completion recorded without a key (never one sent through the API). */
  key_id: string | null;
  /** The key's name, as shown in the dashboard; null when the key is unknown. */
  key_name: string | null;
  item: MeteredItem;
  quantity: number;
  included: number;
  overage: number;
}

export type StatementTotal = Omit<StatementLine, 'key_id' | 'key_name'>;

export interface UsageStatement {
  object: 'usage_statement';
  account_id: string;
  /** `2026-11`: the calendar month in UTC, [from, to). */
  month: string;
  from: string;
  to: string;
  /** False while the month runs: its figures may still grow. */
  complete: boolean;
  /** The production plan the month is billed on (the account's when the statement is written). */
  plan: Pick<AppliedPlan, 'name' | 'monthly_quota' | 'hard_cap'>;
  lines: StatementLine[];
  totals: StatementTotal[];
}

/** One environment's metered figures for the month: the usage counters per instant, and the plan it is metered on. */
export interface MeteredEnvironment {
  environment: Environment;
  plan: AppliedPlan;
  /** The month's rows of the instant counter (`2026-11-22T09:30:15.123`), of every metered item. */
  rows: readonly UsageCountRow[];
}

export interface StatementInput {
  accountId: string;
  month: string;
  now: Date;
  /** The account's production plan, which the statement names whichever environments it covers. */
  plan: AppliedPlan;
  environments: readonly MeteredEnvironment[];
  keyNames: ReadonlyMap<string, string>;
}

/** The included part of each row of a quota'd item, in completion order: those past the quota are overage. */
function allocate(rows: readonly UsageCountRow[], quota: number | null): Map<UsageCountRow, number> {
  const included = new Map<UsageCountRow, number>();
  let before = 0;
  const ordered = [...rows].sort((a, b) => compare(a.period, b.period) || compare(a.key, b.key));
  for (const row of ordered) {
    included.set(row, quota === null ? row.n : Math.min(row.n, Math.max(0, quota - before)));
    before += row.n;
  }
  return included;
}

function linesOf({ environment, plan, rows }: MeteredEnvironment, keyNames: ReadonlyMap<string, string>): StatementLine[] {
  const lines = new Map<string, StatementLine>();
  for (const item of meteredItems) {
    const ofItem = rows.filter((row) => row.item === item);
    // Only production's assessments are billed against the quota: the sandbox is free, situational ones have none.
    const quota = plan.billed && item === 'completed_assessments' ? plan.monthly_quota : null;
    for (const [row, included] of allocate(ofItem, quota)) {
      const id = `${item}\u0000${row.key}`;
      const line = lines.get(id) ?? {
        environment,
        plan: plan.name,
        key_id: row.key === '' ? null : row.key,
        key_name: keyNames.get(row.key) ?? null,
        item,
        quantity: 0,
        included: 0,
        overage: 0,
      };
      line.quantity += row.n;
      line.included += included;
      line.overage += row.n - included;
      lines.set(id, line);
    }
  }
  return [...lines.values()];
}

const order = (line: StatementTotal) => [environments.indexOf(line.environment), meteredItems.indexOf(line.item)] as const;

export function usageStatement({ accountId, month, now, plan, environments: metered, keyNames }: StatementInput): UsageStatement {
  const { from, to } = monthBounds(month);
  const lines = metered
    .flatMap((each) => linesOf(each, keyNames))
    .sort((a, b) => {
      const [ea, ia] = order(a);
      const [eb, ib] = order(b);
      return ea - eb || ia - ib || compare(a.key_id ?? '', b.key_id ?? '');
    });
  const totals: StatementTotal[] = [];
  for (const { environment, plan: metering } of metered) {
    for (const item of meteredItems) {
      const of = lines.filter((line) => line.environment === environment && line.item === item);
      const sum = (field: 'quantity' | 'included' | 'overage') => of.reduce((total, line) => total + line[field], 0);
      totals.push({
        environment,
        plan: metering.name,
        item,
        quantity: sum('quantity'),
        included: sum('included'),
        overage: sum('overage'),
      });
    }
  }
  return {
    object: 'usage_statement',
    account_id: accountId,
    month,
    from: from.toISOString(),
    to: to.toISOString(),
    complete: now.getTime() >= to.getTime(),
    plan: { name: plan.name, monthly_quota: plan.monthly_quota, hard_cap: plan.hard_cap },
    lines,
    totals,
  };
}
