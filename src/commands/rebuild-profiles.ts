import type { ScoringCompleted } from '../domain/assessment.js';
import { decideActivateScoringVersion, SCORING_VERSIONS_STREAM } from '../domain/scoring-versions.js';
import type { EventStore, RecordedEvent } from '../ports/event-store.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { scoringVersionsAggregate } from './aggregates.js';
import { activeScoringVersion, rescoreAssessment } from './assessments.js';
import { handleCommand } from './handle-command.js';

export interface RebuildProgress {
  phase: 'rescoring' | 'announcing';
  done: number;
  total: number;
}

export interface RebuildSummary {
  scoring_version: string;
  /** Completed assessments in the log. */
  assessments: number;
  /** Rescored by this run (a resumed run skips what the killed one did). */
  rescored: number;
  /**
   * Served profiles the switch to the version changed (their scores differ from what callers were told before),
   * each announced once as nature.profile.updated: by this run, or by an earlier run of the same switch.
   */
  changed_profiles: number;
  /** Whether this run switched the API to the version (false if it already served it). */
  activated: boolean;
  seconds: number;
}

interface Completion {
  assessment_id: string;
  position: bigint;
}

const PAGE = 1000;
const CHECKPOINT_EVERY = 25;

/**
 * Rebuilds the profiles with another scoring version, from the log, while the API serves the old ones:
 * 1. every completed assessment gets a profile in the version (ProfileRescored: staged, not served),
 *    checkpointed so a killed run resumes; completions that land meanwhile are picked up before the switch;
 * 2. one ScoringVersionActivated switches every reader at once;
 * 3. each served profile whose scores the switch changed is announced once (ProfileUpdated →
 *    nature.profile.updated), whichever way it goes (back to an earlier version too), and a completion that
 *    slipped in around the switch is rescored here or by the server's rescoring reactor.
 *    nature.assessment.completed is never sent again.
 */
export async function rebuildProfiles(
  stores: { sealedLog: EventStore; events: EventStore; readModels: ReadModelStore },
  version: string,
  options: {
    /** The rebuild waits for what it returns. */ onProgress: (progress: RebuildProgress) => void | Promise<void>;
    clock?: () => Date;
  },
): Promise<RebuildSummary> {
  const clock = options.clock ?? (() => new Date());
  const started = Date.now();
  const checkpointName = `profile_rebuild:${version}`;
  const completions = new CompletionScan(stores.sealedLog);
  const rescore = (assessmentId: string, active: string | undefined, notify: boolean) =>
    rescoreAssessment(stores.events, assessmentId, {
      scoring_version: version,
      active_version: active,
      notify,
      now: clock(),
      causation: 'profile_rebuild',
    });

  const active = await activeScoringVersion(stores.events);
  let rescored = 0;
  let activated = false;
  if (active !== version) {
    const checkpoint = (await stores.readModels.checkpoint(checkpointName)) ?? 0n;
    let done = 0;
    // Until a pass over the log finds no new completion: those landing during the rebuild are rescored too.
    for (let batch = await completions.more(); batch.length > 0; batch = await completions.more()) {
      for (const completion of batch) {
        done += 1;
        if (completion.position > checkpoint) {
          const result = await rescore(completion.assessment_id, active, false);
          if (result?.events.some((event) => event.type === 'ProfileRescored')) rescored += 1;
          if (done % CHECKPOINT_EVERY === 0) await stores.readModels.commit(checkpointName, completion.position, []);
        }
        await options.onProgress({ phase: 'rescoring', done, total: completions.all.length });
      }
      const last = batch.at(-1)!;
      if (last.position > checkpoint) await stores.readModels.commit(checkpointName, last.position, []);
    }
    activated = await activate(stores.events, version, clock());
  }
  // The announcement pass visits every completion, those that landed around the switch included.
  await completions.more();
  let changed = 0;
  let done = 0;
  for (const completion of completions.all) {
    const state = (await rescore(completion.assessment_id, version, true))?.state;
    // Served in the version and announced as a change (by this run, or by an earlier run of this switch).
    if (state?.announced?.by === 'update' && state.announced.profile_id === state.profiles[version]?.profile_id) changed += 1;
    done += 1;
    await options.onProgress({ phase: 'announcing', done, total: completions.all.length });
  }
  return {
    scoring_version: version,
    assessments: completions.all.length,
    rescored,
    changed_profiles: changed,
    activated,
    seconds: (Date.now() - started) / 1000,
  };
}

/** The log's completions in log order, read onward from where the last call stopped. */
class CompletionScan {
  readonly all: Completion[] = [];
  private after: bigint | undefined;

  constructor(private readonly log: EventStore) {}

  /** The completions appended since the last call (every one on the first). */
  async more(): Promise<Completion[]> {
    const found: Completion[] = [];
    let page: RecordedEvent[];
    do {
      page = await this.log.readAll({ ...(this.after !== undefined && { after: this.after }), limit: PAGE });
      for (const event of page) {
        this.after = event.position;
        // Scoring is exactly once, so each assessment completes once in the log.
        if (event.type === 'ScoringCompleted')
          found.push({ assessment_id: (event.data as ScoringCompleted['data']).assessment_id, position: event.position });
      }
    } while (page.length === PAGE);
    this.all.push(...found);
    return found;
  }
}

/** Makes `version` the served one; false if it already was. */
async function activate(events: EventStore, version: string, now: Date): Promise<boolean> {
  const result = await handleCommand(
    events,
    SCORING_VERSIONS_STREAM,
    scoringVersionsAggregate,
    (active) => decideActivateScoringVersion(active, { scoring_version: version, now: now.toISOString() }),
    { causation: 'profile_rebuild' },
    now,
  );
  return result.appended !== undefined;
}
