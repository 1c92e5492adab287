import { type Plan, planNames, plans } from '../../domain/plans.js';

const figure = (n: number) => n.toLocaleString('en-US');

const rateOf = ({ rate_limit }: Plan) =>
  rate_limit === null
    ? "the account's plan's (the same limit in both environments)"
    : `${figure(rate_limit.per_second)} requests/s per key, burst ${figure(rate_limit.burst)}`;

/** The plans table of /docs/usage, made from the one table the service applies (domain/plans.ts), so the two cannot differ. */
export function plansTable(): string {
  const rows = planNames.map((name) => {
    const plan = plans[name];
    const quota = plan.monthly_quota === null ? 'no quota' : `${figure(plan.monthly_quota)} completed assessments`;
    const past =
      plan.monthly_quota === null
        ? 'never capped, never billed'
        : `overage metered; with a hard cap (\`--hard-cap\`), starts answer 402 past ${figure(plan.monthly_quota)}`;
    return `| \`${name}\` | ${plan.environment === 'test' ? 'sandbox, always free' : 'production'} | ${rateOf(plan)} | ${quota} | ${past} |`;
  });
  return ['| plan | meters | rate limit | included each UTC month | past the quota |', '|---|---|---|---|---|', ...rows].join('\n');
}
