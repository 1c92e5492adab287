import { renderQuotaChart } from '../../charts/quota-chart.js';
import { currentPlan } from '../../commands/account-plans.js';
import type { Environment } from '../../domain/api-keys.js';
import { monthBounds, monthOf } from '../../domain/plans.js';
import { planUsage, readUsage } from '../../projections/usage.js';
import type { DashboardContext } from '../context.js';
import { Html, html } from '../html.js';

const DAY_MS = 86_400_000;
const figure = (n: number) => n.toLocaleString('en-US');

/**
 * The current UTC month against the plan, for the usage page of one environment: the figures as text (plan, included,
 * used, left, overage, cap, when the count starts again) and the running total drawn against the quota. The same
 * figures as GET /v1/nature/usage's `plan` and `quota`; rate limits are the plan's unless the operator overrode them.
 */
export async function quotaSection(context: DashboardContext, environment: Environment): Promise<Html> {
  const env = context.envs[environment];
  const now = context.clock();
  const month = monthOf(now);
  const choice = await currentPlan(context.accounts);
  // The chart's markup is escaped where it is made (charts/svg-markup.ts).
  const { plan, quota } = await planUsage(env.readModels, environment, { choice, override: context.rateLimit ?? {} }, now);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const { from, to } = monthBounds(month);
  const report = await readUsage(env.readModels, { from, to: new Date(today + DAY_MS), granularity: 'day' }, env.livemode);
  const perDay = Array.from({ length: (today - from.getTime()) / DAY_MS + 1 }, () => 0);
  for (const row of report.data) perDay[Number(row.period.slice(8, 10)) - 1]! += row.completed_assessments;
  const chart = renderQuotaChart({
    month,
    perDay,
    days: Math.round((to.getTime() - from.getTime()) / DAY_MS),
    quota: quota.included,
    hardCap: quota.hard_cap,
    id: 'quota-chart',
  });
  const fields: [string, string][] = [
    ['Plan', plan.billed ? plan.name : 'sandbox (always free)'],
    ['Included each month', quota.included === null ? 'no quota' : `${figure(quota.included)} completed assessments`],
    ['Used this month', figure(quota.used)],
    ...(quota.remaining === null ? [] : ([['Left', figure(quota.remaining)]] as [string, string][])),
    ...(plan.billed ? ([['Overage', `${figure(quota.overage)} (metered, billed apart)`]] as [string, string][]) : []),
    [
      'Hard cap',
      quota.hard_cap === null
        ? plan.billed
          ? 'none: past the quota, production keeps working'
          : 'none'
        : `${figure(quota.hard_cap)}${quota.capped ? ': reached, new assessments are refused (402)' : ''}`,
    ],
    ['Count starts again', `${quota.resets_at.slice(0, 10)} (UTC)`],
    ['Rate limit per key', `${figure(plan.rate_limit.per_second)} requests/s, burst ${figure(plan.rate_limit.burst)}`],
  ];
  return html`<h2>This month against the plan</h2>
<dl class="fields">${fields.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>
<figure>${new Html(chart)}<figcaption>Completed assessments in ${month} so far, a running total by day${quota.included === null ? '' : html` against the ${quota.hard_cap === null ? 'quota' : 'hard cap'} (dashed line)`}.</figcaption></figure>
<p class="hint">The operator sets the plan (<code>nature account plan set</code>); the plans are listed in <a href="/docs/usage#plans">the usage guide</a>.</p>`;
}
