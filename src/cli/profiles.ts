import { Command, Option } from 'commander';
import { type RebuildProgress, rebuildProfiles } from '../commands/rebuild-profiles.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { scoringVersions } from '../scoring/scorers.js';
import type { openOperatorStores } from '../wiring/environments.js';
import type { Output } from './keys.js';
import { progressBar } from './progress-bar.js';

type OperatorStores = Awaited<ReturnType<typeof openOperatorStores>>;

const phaseNames: Record<RebuildProgress['phase'], string> = { rescoring: 'rescoring ', announcing: 'announcing' };

/** `progress` is where the progress bar goes: stderr, beside `output`'s lines. */
export function profilesCommand(
  openStores: (environment: Environment) => Promise<OperatorStores>,
  output: Output,
  progress: NodeJS.WritableStream,
): Command {
  const profiles = new Command('profiles').description('operate on profiles');
  profiles
    .command('rebuild')
    .description(
      'rescore every completed assessment from the log with a scoring version, then switch the API to it at once; the old profiles serve until then. ' +
        'Safe to run while the server runs, and to run again after an interruption: it resumes from its checkpoint.',
    )
    .addOption(new Option('--scoring-version <version>', 'the version to rebuild with').choices(scoringVersions).makeOptionMandatory())
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .option('--json', 'print the summary as one JSON object')
    .action(async (options: { scoringVersion: string; env: Environment; json?: boolean }) => {
      const stores = await openStores(options.env);
      const bar = progressBar(progress, 'assessments');
      try {
        const summary = await rebuildProfiles(stores, options.scoringVersion, {
          onProgress: (progress) => bar.update({ ...progress, phase: phaseNames[progress.phase] }),
        });
        bar.stop();
        if (options.json) return output.out(JSON.stringify(summary));
        output.out(
          `profiles rebuilt with ${summary.scoring_version}: ${summary.assessments} completed assessments, ${summary.rescored} rescored by this run, ` +
            `${summary.changed_profiles} changed profiles (announced as nature.profile.updated), ` +
            `${summary.activated ? 'now served' : `already served before this run`}, in ${summary.seconds.toFixed(1)} s`,
        );
      } finally {
        bar.stop();
        await stores.close();
      }
    });
  return profiles;
}
