import { Command, Option } from 'commander';
import { type Environment, environments } from '../domain/api-keys.js';
import { granularities, parseUsageRange } from '../domain/usage.js';
import { planUsage, readUsage } from '../projections/usage.js';
import { UsageError } from './errors.js';
import type { Output } from './keys.js';
import { statementCommand } from './usage-statement.js';
import type { UsageStores } from './usage-stores.js';

const environmentNames = { test: 'sandbox', live: 'production' } as const;

interface ReportOptions {
  env?: Environment;
  from?: string;
  to?: string;
  granularity: string;
  json?: boolean;
}

/**
 * `nature usage`: completed assessments per key and UTC day or month, from the usage read model the server keeps;
 * `nature usage statement`: a month's statement for billing, of one environment with --env, else of both.
 */
export function usageCommand(stores: UsageStores, output: Output): Command {
  const usage = new Command('usage')
    .description(
      'completed assessments and situational assessments per API key and per UTC day or month, from the usage read model (counts only, for billing)',
    )
    // Required for the report, but not by commander: it would require it of `usage statement` too.
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production); required, but by usage statement').choices(environments))
    .option(
      '--from <date>',
      'inclusive: YYYY-MM-DD (midnight UTC) or a UTC timestamp such as 2026-11-01T00:00:00Z (default: start of this UTC month)',
    )
    .option('--to <date>', 'exclusive: YYYY-MM-DD (midnight UTC) or a UTC timestamp such as 2026-12-01T00:00:00Z (default: now)')
    .addOption(new Option('--granularity <granularity>', 'one row per key and UTC day or month').choices(granularities).default('day'))
    .option('--json', 'print one JSON object, as GET /v1/nature/usage answers')
    .action((options: ReportOptions) => report(stores, output, options));
  usage.addCommand(statementCommand(stores, output));
  return usage;
}

async function report(stores: UsageStores, output: Output, options: ReportOptions): Promise<void> {
  if (options.env === undefined) throw new UsageError("required option '--env <env>' not specified");
  const env = options.env;
  const now = new Date();
  const parsed = parseUsageRange(options, now);
  if ('errors' in parsed) throw new UsageError(parsed.errors.map((error) => error.message).join('; '));
  const plan = { choice: await stores.readPlan(), override: stores.rateLimit() };
  const readModels = await stores.openReadModels(env);
  try {
    const usage = await readUsage(readModels, parsed.range, env === 'live');
    if (options.json) return output.out(JSON.stringify({ ...usage, ...(await planUsage(readModels, env, plan, now)) }));
    output.err(
      `${environmentNames[env]}: completed assessments (and situational assessments) per key and ${usage.granularity}, from ${usage.from} (inclusive) to ${usage.to} (exclusive)`,
    );
    for (const row of usage.data) {
      output.out(`${row.period}  ${row.key_id ?? '-'}  ${row.completed_assessments}  ${row.completed_situational_assessments}`);
    }
    output.out(`total  ${usage.total_completed_assessments}  ${usage.total_completed_situational_assessments}`);
  } finally {
    await readModels.close();
  }
}
