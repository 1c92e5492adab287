import { Presets, SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { type RebuildProgress, rebuildProfiles } from '../commands/rebuild-profiles.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { scoringVersions } from '../scoring/scorers.js';
import type { openOperatorStores } from '../wiring/environments.js';
import type { Output } from './keys.js';

type OperatorStores = Awaited<ReturnType<typeof openOperatorStores>>;

const phaseNames: Record<RebuildProgress['phase'], string> = { rescoring: 'rescoring ', announcing: 'announcing' };

/**
 * A progress bar with rate and ETA on stderr: drawn in place on a terminal, and printed as a plain line
 * every few seconds otherwise (CI logs, pipes).
 */
function progressBar(stream: NodeJS.WritableStream): { update(progress: RebuildProgress): void; stop(): void } {
  const bar = new SingleBar(
    {
      stream,
      format: '{phase} [{bar}] {percentage}% | {value}/{total} assessments | {rate}/s | ETA {eta_formatted}',
      noTTYOutput: true,
      notTTYSchedule: 2000,
      etaBuffer: 200,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  let phase: RebuildProgress['phase'] | undefined;
  let phaseStart = Date.now();
  return {
    update(progress) {
      if (progress.phase !== phase) {
        if (phase !== undefined) bar.stop();
        phase = progress.phase;
        phaseStart = Date.now();
        bar.start(progress.total, 0, { phase: phaseNames[phase], rate: '0' });
      }
      const rate = progress.done / Math.max((Date.now() - phaseStart) / 1000, 0.001);
      bar.setTotal(progress.total);
      bar.update(progress.done, { phase: phaseNames[progress.phase], rate: rate.toFixed(0) });
    },
    stop() {
      if (phase !== undefined) bar.stop();
    },
  };
}

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
      const bar = progressBar(progress);
      try {
        const summary = await rebuildProfiles(stores, options.scoringVersion, { onProgress: (progress) => bar.update(progress) });
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
