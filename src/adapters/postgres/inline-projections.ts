import type { RecordedEvent } from '../../ports/event-store.js';
import type { Projection } from '../../ports/projection.js';
import { absorb, Fold, idsToRead } from '../../projector/fold.js';
import type { TransactionSql } from './client.js';
import { EVENT_COLUMNS, type EventRow, toRecorded } from './event-rows.js';
import { applyWrites, moveCheckpoints, storedVersions } from './read-model-statements.js';

/**
 * Events before an append that the projections may still lack, at most, for the append to fold them in with its own:
 * a projector's lane that is further behind (a server just started, a rebuild) catches up first.
 */
const MAX_GAP = 64n;

/**
 * Folds every projection over the events an append has just inserted (`appended`, in log order), inside the append's
 * own transaction, under the log's lock: the read models a command's answer reads commit with its events, and the
 * command need not wait for the projector (one transaction per command, issue 42). The projections' checkpoints move
 * to the append's last position, so the projector's lanes pass over what this wrote (the stores' position rule makes
 * a lane's later write of the same events change nothing).
 *
 * Only when it is exact: every projection's checkpoint at most MAX_GAP events behind (the events in between are read
 * and folded too), and no event among them that sweeps (an erasure, which the lanes purge after). Otherwise it writes
 * nothing and answers false: the projector's lanes do it, as for every other log.
 */
export async function projectInTransaction(
  tx: TransactionSql,
  projections: readonly Projection[],
  appended: readonly RecordedEvent[],
): Promise<boolean> {
  const first = appended[0]!.position;
  const last = appended.at(-1)!.position;
  const names = projections.map((projection) => projection.name);
  const checkpoints = await checkpointsOf(tx, names);
  const oldest = names.reduce((min, name) => {
    const at = checkpoints.get(name) ?? 0n;
    return at < min ? at : min;
  }, first - 1n);
  // Positions are drawn from a sequence, which a rolled-back append leaves holes in: the gap is at most this.
  if (first - 1n - oldest > MAX_GAP) return false;
  const events = oldest < first - 1n ? [...(await eventsBetween(tx, oldest, first)), ...appended] : appended;
  if (events.some((event) => projections.some((projection) => projection.sweep?.(event) !== undefined))) return false;
  for (const projection of projections) {
    const from = checkpoints.get(projection.name) ?? 0n;
    const types = new Set<string>(projection.canHandle);
    const due = events.filter((event) => event.position > from && types.has(event.type) && (projection.acts?.(event) ?? true));
    if (due.length === 0) continue;
    const fold = new Fold(last);
    absorb(projection, due, await storedVersions(tx, projection.collection, idsToRead(projection, due, fold)), fold);
    await applyWrites(tx, fold.writes(projection.collection), last);
  }
  await moveCheckpoints(tx, names, last);
  return true;
}

async function checkpointsOf(tx: TransactionSql, names: readonly string[]): Promise<Map<string, bigint>> {
  const rows = await tx<{ projection: string; position: string }[]>`
    SELECT projection, position::text FROM projection_checkpoints WHERE projection = ANY(${[...names]}::text[])`;
  return new Map(rows.map((row) => [row.projection, BigInt(row.position)]));
}

/** The log's events after `after` and before `before`, as a subscriber reads them. */
async function eventsBetween(tx: TransactionSql, after: bigint, before: bigint): Promise<RecordedEvent[]> {
  const rows = await tx<EventRow[]>`
    SELECT ${tx(EVENT_COLUMNS)} FROM events
    WHERE position > ${after.toString()} AND position < ${before.toString()} ORDER BY position`;
  return rows.map(toRecorded);
}
