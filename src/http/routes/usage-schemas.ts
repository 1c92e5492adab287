import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { planNames } from '../../domain/plans.js';
import { granularities } from '../../domain/usage.js';
import { exampleIds, id, problems, success, timestamp } from '../schemas.js';

// The usage route's schema: what it takes and answers, and what the OpenAPI document says of it.

/** Checked in the handler (parseUsageRange), the same way the operator command checks it. */
const instant = z.string().optional();

const usageQuery = z.strictObject({
  from: instant.describe(
    'Inclusive. YYYY-MM-DD (midnight UTC) or a UTC timestamp such as 2026-11-22T00:00:00Z. Default: the start of the current UTC month.',
  ),
  to: instant.describe(
    'Exclusive. YYYY-MM-DD (midnight UTC) or a UTC timestamp such as 2026-11-23T00:00:00Z. Default: now. Must be after from.',
  ),
  granularity: z.enum(granularities).default('day').describe('day (periods such as 2026-11-22) or month (2026-11), in UTC.'),
});

const count = (example: number) =>
  z
    .number()
    .int()
    .min(0)
    .meta({ examples: [example] });

const planObject = z
  .object({
    name: z
      .enum(planNames)
      .describe(
        "The plan this environment is metered on: the account's plan in production (starter, standard or scale), sandbox in the sandbox.",
      ),
    monthly_quota: count(10000)
      .nullable()
      .describe('Completed assessments included per calendar month (UTC); null in the sandbox, which has no quota.'),
    hard_cap: count(10000)
      .nullable()
      .describe(
        'Past this many completed assessments in a month, starting one in production answers 402 plan_quota_exceeded; null: the overage is metered.',
      ),
    rate_limit: z
      .object({ per_second: count(250), burst: count(500) })
      .describe("Each API key's rate limit, the same in both environments: what the RateLimit-Policy header says."),
    billed: z.boolean().describe('False in the sandbox: it is always free.'),
  })
  .describe('The plan (the table is in /docs/usage). A plan change applies within 2 s.');

const quotaObject = z
  .object({
    month: z
      .string()
      .describe('The current calendar month, UTC, whatever from and to are.')
      .meta({ examples: ['2026-11'] }),
    included: count(10000).nullable().describe("The plan's monthly quota; null in the sandbox."),
    used: count(1234).describe("This environment's completed assessments this month, every key's."),
    remaining: count(8766).nullable().describe('Included completions left this month; null without a quota.'),
    overage: count(0).describe('Completions past the quota this month (production only): metered, billed apart.'),
    hard_cap: count(10000).nullable().describe('As the plan says; null: no cap.'),
    capped: z.boolean().describe('True once used reached the hard cap: starting an assessment answers 402 until resets_at.'),
    resets_at: timestamp.describe('The start of the next UTC month, when used starts again from 0.'),
  })
  .describe('The current month against the plan.');

const usageResource = z
  .object({
    object: z.literal('usage'),
    livemode: z.boolean().describe("The key's environment: live keys see production usage only, test keys sandbox usage only."),
    from: timestamp.describe('The inclusive start, as a full timestamp.'),
    to: timestamp.describe('The exclusive end, as a full timestamp.'),
    granularity: z.enum(granularities),
    data: z
      .array(
        z.object({
          key_id: id('key', exampleIds.key, 'The key that sent the batch completing the assessment.').nullable(),
          period: z
            .string()
            .describe('2026-11-22 (day) or 2026-11 (month), UTC.')
            .meta({ examples: ['2026-11-21'] }),
          completed_assessments: z
            .number()
            .int()
            .min(0)
            .meta({ examples: [42] }),
          completed_situational_assessments: z
            .number()
            .int()
            .min(0)
            .describe('Situational assessments completed (failed ones are not counted), billed to the key that asked for them.')
            .meta({ examples: [3] }),
        }),
      )
      .describe('One row per key and period with at least one completion of either kind; sorted by period, then key_id.'),
    total_completed_assessments: z
      .number()
      .int()
      .min(0)
      .meta({ examples: [42] }),
    total_completed_situational_assessments: z
      .number()
      .int()
      .min(0)
      .meta({ examples: [3] }),
    plan: planObject,
    quota: quotaObject,
  })
  .meta({ id: 'Usage' });

export const getUsageSchema = {
  tags: ['usage'],
  operationId: 'getUsage',
  summary: 'Completed assessments per key and period',
  description:
    "Metered usage of the key's environment: assessments completed in [from, to), per API key (the key that sent the completing " +
    'batch), and situational assessments completed (per the key that asked for them), per UTC day or month, from a read model the service keeps from the event log. Counts only: no subject data. Re-scoring does not count. ' +
    'With the plan the environment is metered on and the current month against its quota. Needs a secret key with nature:read.',
  querystring: usageQuery,
  response: {
    200: success('Completed assessments per key and period, with their total.', usageResource),
    ...problems(),
  },
} satisfies FastifySchema;
