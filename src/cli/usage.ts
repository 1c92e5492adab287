import { Command, Option } from 'commander';
import { type Environment, environments } from '../domain/api-keys.js';
import { granularities, parseUsageRange } from '../domain/usage.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { readUsage } from '../projections/usage.js';
import { UsageError } from './errors.js';
import type { Output } from './keys.js';

const environmentNames = { test: 'sandbox', live: 'production' } as const;

/** `nature usage`: completed assessments per key and UTC day or month, from the usage read model the server keeps. */
export function usageCommand(openReadModels: (environment: Environment) => Promise<ReadModelStore>, output: Output): Command {
  return new Command('usage')
    .description(
      'completed assessments and situational assessments per API key and per UTC day or month, from the usage read model (counts only, for billing)',
    )
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .option(
      '--from <date>',
      'inclusive: YYYY-MM-DD (midnight UTC) or a UTC timestamp such as 2026-11-01T00:00:00Z (default: start of this UTC month)',
    )
    .option('--to <date>', 'exclusive: YYYY-MM-DD (midnight UTC) or a UTC timestamp such as 2026-12-01T00:00:00Z (default: now)')
    .addOption(new Option('--granularity <granularity>', 'one row per key and UTC day or month').choices(granularities).default('day'))
    .option('--json', 'print one JSON object, as GET /v1/nature/usage answers')
    .action(async (options: { env: Environment; from?: string; to?: string; granularity: string; json?: boolean }) => {
      const parsed = parseUsageRange(options, new Date());
      if ('errors' in parsed) throw new UsageError(parsed.errors.map((error) => error.message).join('; '));
      const readModels = await openReadModels(options.env);
      try {
        const report = await readUsage(readModels, parsed.range, options.env === 'live');
        if (options.json) return output.out(JSON.stringify(report));
        output.err(
          `${environmentNames[options.env]}: completed assessments (and situational assessments) per key and ${report.granularity}, from ${report.from} (inclusive) to ${report.to} (exclusive)`,
        );
        for (const row of report.data) {
          output.out(`${row.period}  ${row.key_id ?? '-'}  ${row.completed_assessments}  ${row.completed_situational_assessments}`);
        }
        output.out(`total  ${report.total_completed_assessments}  ${report.total_completed_situational_assessments}`);
      } finally {
        await readModels.close();
      }
    });
}
