import type { EventStore, RecordedEvent } from '../ports/event-store.js';
import { Fold } from './fold.js';
import type { ProjectionLane } from './lanes.js';

export interface CatchUpLimits {
  /** Events read per page; a first page shorter than this is no backlog, and the projector pages as usual. */
  page: number;
  /**
   * Documents and counted events held in memory, summed over the projections, before they are committed: the
   * memory bound. A document is at most a few KB (a sealed profile), so 20,000 hold some tens of MB.
   */
  hold: number;
}

export const catchUpLimits: CatchUpLimits = { page: 4096, hold: 20_000 };

/**
 * Projections far behind the log (a fresh or reset read model, a long stop) catch up in one scan of it: every
 * projection folds each page into its documents' newest versions in memory, and they are committed (with the
 * checkpoints) only once `hold` is reached and at the end, in big transactions. The list indexes stay: dropping and
 * building them again costs a scan of the whole table per index, which a catch-up onto a large read model (a long
 * stop) would pay in full; onto an empty one, keeping them measured the same as rebuilding them.
 * A document changed by many events is written once, not once per page. The same fold as page by page, so what
 * it builds is what the live projector builds; a crash part-way resumes from the checkpoints as usual.
 */
export async function catchUp(
  events: EventStore,
  lanes: readonly ProjectionLane[],
  signal: AbortSignal,
  limits: CatchUpLimits = catchUpLimits,
): Promise<void> {
  if (lanes.length === 0) return;
  const from = lanes.reduce((min, lane) => (lane.position < min ? lane.position : min), lanes[0]!.position);
  let page = await events.readAll({ after: from, limit: limits.page });
  if (page.length < limits.page) return;
  let folds = lanes.map((lane) => new Fold(lane.position));
  for (;;) {
    folds = await Promise.all(lanes.map((lane, i) => lane.take(page, folds[i]!)));
    if (held(folds) >= limits.hold) await commitAll(lanes, folds);
    if (page.length < limits.page || signal.aborted) break;
    page = await nextPage(events, page, limits.page);
  }
  await commitAll(lanes, folds);
}

const nextPage = (events: EventStore, page: RecordedEvent[], limit: number) => events.readAll({ after: page.at(-1)!.position, limit });

function held(folds: readonly Fold[]): number {
  let count = 0;
  for (const fold of folds) {
    count += fold.docs.size;
    for (const write of fold.counted.values()) count += write.positions.length;
  }
  return count;
}

async function commitAll(lanes: readonly ProjectionLane[], folds: readonly Fold[]): Promise<void> {
  for (const [i, lane] of lanes.entries()) if (folds[i]!.position > lane.position) await lane.commitFold(folds[i]!);
}
