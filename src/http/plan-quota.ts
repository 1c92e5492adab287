import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { appliedPlan, monthOf, type PlanChoice, quotaFigures, secondsToMonthEnd } from '../domain/plans.js';
import { completionsInMonth } from '../projections/usage.js';
import { ProblemError } from './problem.js';

/**
 * What a hard cap refuses: the requests that start an assessment in production, directly or through a link a person
 * opens later. The cap is on completions, but a caller learns of it best before anyone starts answering: refusing the
 * batch that completes an assessment would throw away a person's answers in their browser. Assessments started before
 * the cap was reached still complete (and are metered), so a month may pass its cap by those that were open then.
 */
export const CAPPED_OPERATIONS: ReadonlySet<string> = new Set(['startAssessment', 'createAssessmentLink']);

/** The detail of plan_quota_exceeded: what was reached, and when it starts again. */
export const quotaExceededDetail = (used: number, cap: number, resetsAt: string) =>
  `This month's ${used} completed assessments reached the plan's hard cap of ${cap}: no assessment starts in production until ${resetsAt} (UTC), when the count starts again, unless the operator changes the plan.`;

/**
 * Past the hard cap, in production: 402 plan_quota_exceeded with Retry-After, the seconds to the end of the UTC month.
 * Counted from the usage read model (the completions the projector has counted so far, milliseconds behind the log).
 */
export function registerPlanQuota(app: FastifyInstance, plans: { current(): PlanChoice }, clock: () => Date): void {
  const check: preHandlerAsyncHookHandler = async (request) => {
    if (!request.env.livemode) return;
    const plan = appliedPlan(plans.current(), 'live');
    if (plan.hard_cap === null) return;
    const now = clock();
    const month = monthOf(now);
    const quota = quotaFigures(plan, month, await completionsInMonth(request.env.readModels, month));
    if (!quota.capped) return;
    throw new ProblemError(
      'plan_quota_exceeded',
      quotaExceededDetail(quota.used, plan.hard_cap, quota.resets_at),
      { plan: plan.name, hard_cap: plan.hard_cap, resets_at: quota.resets_at },
      { 'retry-after': String(secondsToMonthEnd(now)) },
    );
  };
  app.addHook('onRoute', (route) => {
    const operation = (route.schema as { operationId?: string } | undefined)?.operationId;
    if (operation === undefined || !CAPPED_OPERATIONS.has(operation)) return;
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...own, check];
  });
}
