import type { Collections } from '../ports/collections.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { recomputeSituationalAssessment, type SituationalEnv } from './situational.js';

export interface SituationalRebuildProgress {
  done: number;
  total: number;
}

export interface SituationalRebuildSummary {
  method_version: string;
  /** Situational assessments read (completed or failed) in the environment, erased subjects' left out. */
  assessments: number;
  /** Read again by this run: those read with another method (a run again, or resumed, skips what is done). */
  recomputed: number;
  seconds: number;
}

type Stored = Collections['situational_assessments'];

const PAGE = 100;

/**
 * Reads every situational outcome recorded by another method again with `version`, from the log: each is recorded as
 * SituationalAssessmentRecomputed, which the read models show at once and nothing announces (each request was answered
 * once, by its situational.assessment.completed). Safe beside a running server, and to run again: an outcome already
 * read with the version is left as it is. The read models list what there is to read.
 */
export async function rebuildSituational(
  stores: SituationalEnv & { readModels: ReadModelStore },
  version: string,
  options: { onProgress: (progress: SituationalRebuildProgress) => void; clock?: () => Date },
): Promise<SituationalRebuildSummary> {
  const clock = options.clock ?? (() => new Date());
  const started = Date.now();
  const read: string[] = [];
  for (let page = await stores.readModels.list('situational_assessments', { limit: PAGE }); ; ) {
    read.push(...page.data.filter((doc: Stored) => !('erased' in doc) && doc.status !== 'pending').map((doc) => doc.id));
    if (!page.hasMore) break;
    page = await stores.readModels.list('situational_assessments', { limit: PAGE, startingAfter: page.data.at(-1)!.id });
  }
  let recomputed = 0;
  options.onProgress({ done: 0, total: read.length });
  for (const [index, id] of read.entries()) {
    if (await recomputeSituationalAssessment(stores, id, version, clock())) recomputed++;
    options.onProgress({ done: index + 1, total: read.length });
  }
  return { method_version: version, assessments: read.length, recomputed, seconds: (Date.now() - started) / 1000 };
}
