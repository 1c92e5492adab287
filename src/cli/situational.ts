import { Command, Option } from 'commander';
import { rebuildSituational } from '../commands/rebuild-situational.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { methodVersions } from '../situational/methods.js';
import type { openOperatorStores } from '../wiring/environments.js';
import type { Output } from './keys.js';
import { progressBar } from './progress-bar.js';

type OperatorStores = Awaited<ReturnType<typeof openOperatorStores>>;

/** `nature situational rebuild`: outcomes read again with a method version, never announced again. */
export function situationalCommand(
  openStores: (environment: Environment) => Promise<OperatorStores>,
  output: Output,
  progress: NodeJS.WritableStream,
): Command {
  const situational = new Command('situational').description('operate on situational assessments');
  situational
    .command('rebuild')
    .description(
      'read every situational assessment read by another method again with a method version, from the log; the results change at once, ' +
        'and nothing is announced again. Safe to run while the server runs, and to run again.',
    )
    .addOption(new Option('--method-version <version>', 'the method to read with').choices(methodVersions).makeOptionMandatory())
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .option('--json', 'print the summary as one JSON object')
    .action(async (options: { methodVersion: string; env: Environment; json?: boolean }) => {
      const stores = await openStores(options.env);
      const bar = progressBar(progress, 'situational assessments');
      try {
        const summary = await rebuildSituational(stores, options.methodVersion, {
          onProgress: (done) => bar.update({ ...done, phase: 'reading' }),
        });
        bar.stop();
        if (options.json) return output.out(JSON.stringify(summary));
        output.out(
          `situational assessments read with ${summary.method_version}: ${summary.assessments} in all, ${summary.recomputed} read again by this run, ` +
            `in ${summary.seconds.toFixed(1)} s`,
        );
      } finally {
        bar.stop();
        await stores.close();
      }
    });
  return situational;
}
