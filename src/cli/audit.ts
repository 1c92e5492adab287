import { Command, Option } from 'commander';
import { subjectHistory } from '../commands/audit.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { DomainError } from '../domain/errors.js';
import { situationalIdsOf } from '../projections/situational-assessments.js';
import type { openOperatorStores } from '../wiring/environments.js';
import { CliError } from './errors.js';
import type { Output } from './keys.js';

type OperatorStores = Awaited<ReturnType<typeof openOperatorStores>>;

/** `nature audit`: a subject's history straight from the log, as GET …/audit shows it, but whole. */
export function auditCommand(openStores: (environment: Environment) => Promise<OperatorStores>, output: Output): Command {
  return new Command('audit')
    .description("a subject's history from the event log, oldest first; after an erasure its personal values read as erased")
    .argument('<subject_id>')
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .option('--json', 'print one JSON object: {subject_id, data: [entries]}')
    .action(async (subjectId: string, options: { env: Environment; json?: boolean }) => {
      const stores = await openStores(options.env);
      try {
        const situational = await situationalIdsOf(stores.readModels, subjectId);
        const entries = await subjectHistory(stores.events, subjectId, new Date(), situational).catch((error: unknown) => {
          if (error instanceof DomainError)
            throw new CliError(`no subject ${subjectId} in ${options.env === 'live' ? 'production' : 'sandbox'}`);
          throw error;
        });
        if (options.json) return output.out(JSON.stringify({ subject_id: subjectId, data: entries }));
        for (const entry of entries) {
          const who = entry.key_id ? `${entry.key_id} ${entry.request_id ?? ''}`.trim() : 'service';
          const data = entry.personal_data === 'erased' ? '(personal values erased)' : JSON.stringify(entry.data);
          output.out(`${entry.occurred_at}  ${entry.type.padEnd(20)}  ${entry.assessment_id ?? '-'}  ${who}  ${data}`);
        }
      } finally {
        await stores.close();
      }
    });
}
