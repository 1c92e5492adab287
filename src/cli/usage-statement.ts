import { Command, InvalidArgumentError, Option } from 'commander';
import { ACCOUNT_ID } from '../domain/accounts.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { appliedPlan, parseMonth } from '../domain/plans.js';
import { type MeteredEnvironment, type UsageStatement, usageStatement } from '../domain/usage-statement.js';
import { instantsOfMonth } from '../projections/usage.js';
import { csvRecord } from './csv.js';
import { UsageError } from './errors.js';
import type { Output } from './keys.js';
import type { UsageStores } from './usage-stores.js';

const formats = ['csv', 'json'] as const;
type Format = (typeof formats)[number];

const CSV_HEADER = ['month', 'environment', 'plan', 'kind', 'key_id', 'key_name', 'item', 'quantity', 'included', 'overage'];

function month(value: string): string {
  const parsed = parseMonth(value);
  if (parsed === undefined) throw new InvalidArgumentError('A month is YYYY-MM, such as 2026-11, from 2000 to 2099.');
  return parsed;
}

/** The statement as CSV: a header, one record per line (`kind` line), then one per total (`kind` total, no key). */
export function statementCsv(statement: UsageStatement): string[] {
  const of = (fields: { environment: string; plan: string; item: string; quantity: number; included: number; overage: number }) => [
    fields.item,
    fields.quantity,
    fields.included,
    fields.overage,
  ];
  return [
    csvRecord(CSV_HEADER),
    ...statement.lines.map((line) =>
      csvRecord([statement.month, line.environment, line.plan, 'line', line.key_id, line.key_name, ...of(line)]),
    ),
    ...statement.totals.map((total) => csvRecord([statement.month, total.environment, total.plan, 'total', null, null, ...of(total)])),
  ];
}

interface StatementOptions {
  month: string;
  format: Format;
  env?: Environment;
}

/** `nature usage statement`: the month's statement a billing system imports, from the usage read models and the plan. */
export function statementCommand(stores: UsageStores, output: Output): Command {
  return new Command('statement')
    .description(
      "a calendar month's statement for billing: one line per environment, API key and metered item (completions included in the plan, overage), then the totals; --env test|live for one environment only (default: both)",
    )
    .requiredOption('--month <month>', 'the UTC month, YYYY-MM', month)
    .addOption(
      new Option('--format <format>', 'csv (a header, then one record per line and per total) or json').choices(formats).default('csv'),
    )
    .action(async (options: Omit<StatementOptions, 'env'>, command: Command) => {
      // `usage` reads its options wherever they stand: its --env is the statement's too, and the report's others are refused.
      const usage = command.parent!;
      const misplaced = usage.options.filter(
        (option) => option.long !== '--env' && usage.getOptionValueSource(option.attributeName()) === 'cli',
      );
      if (misplaced.length > 0)
        throw new UsageError(
          `${misplaced.map((option) => option.long).join(', ')} is for the report (nature usage), not for nature usage statement`,
        );
      const written = await writeStatement(stores, { ...options, env: usage.opts<{ env?: Environment }>().env });
      if (!written.complete) output.err(`nature: ${written.month} is not over yet (it ends ${written.to}): its figures may still grow`);
      if (options.format === 'json') return output.out(JSON.stringify(written));
      for (const line of statementCsv(written)) output.out(line);
    });
}

async function writeStatement(stores: UsageStores, options: StatementOptions): Promise<UsageStatement> {
  const choice = await stores.readPlan();
  const override = stores.rateLimit();
  const metered: MeteredEnvironment[] = [];
  for (const environment of environments.filter((each) => options.env === undefined || each === options.env)) {
    const readModels = await stores.openReadModels(environment);
    try {
      metered.push({
        environment,
        plan: appliedPlan(choice, environment, override),
        rows: await instantsOfMonth(readModels, options.month),
      });
    } finally {
      await readModels.close();
    }
  }
  return usageStatement({
    accountId: ACCOUNT_ID,
    month: options.month,
    now: new Date(),
    plan: appliedPlan(choice, 'live', override),
    environments: metered,
    keyNames: await stores.keyNames(),
  });
}
