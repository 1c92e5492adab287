import type { Collection, Db } from 'mongodb';
import { pause } from '../../support/pause.js';
import { checkNumbering, DataTooNewError, type MigrationStep, StoreBehindError, stepFailed } from '../data-versions.js';

/** A change to one store's database; idempotent, since a replica killed in it leaves it to run again. */
export type MongoStep = MigrationStep<(db: Db) => Promise<void>>;

/** One document per store (`_id` its name): the last step it holds, and who runs the next one until when. */
interface StoreVersion {
  _id: string;
  version: number;
  claimed_until?: Date;
}

const VERSIONS = '_versions';
/** How long a replica running a step keeps it: one killed in it is taken over after this (its step runs again). */
const CLAIM_MS = 60_000;
/** How often a replica waiting on another's step looks again. */
const WAIT_MS = 100;

/**
 * Brings a store to its last step, the same numbers as its SQLite file's (user_version there). The versions
 * document is the lock: a replica claims the next step by a conditional update (the version it read, no live
 * claim), runs it, then moves the version on; the others wait for the version to move. `asIs` runs nothing and
 * throws StoreBehindError when a step is due.
 */
export async function migrate(db: Db, store: string, steps: readonly MongoStep[], asIs = false): Promise<void> {
  checkNumbering(store, steps);
  const versions = db.collection<StoreVersion>(VERSIONS);
  for (;;) {
    const version = (await versions.findOne({ _id: store }))?.version ?? 0;
    if (version > steps.length) throw new DataTooNewError(store, version, steps.length);
    if (version === steps.length) return;
    if (asIs) throw new StoreBehindError(store, version, steps.length);
    if (!(await claim(versions, store, version))) {
      await pause(WAIT_MS);
      continue;
    }
    const step = steps[version]!;
    await step.run(db).catch((error: unknown) => {
      throw stepFailed(store, step, error);
    });
    await versions.updateOne({ _id: store, version }, { $set: { version: version + 1 }, $unset: { claimed_until: '' } });
  }
}

/** Claims the step after `version`; false when another replica holds it, or moved the version on first. */
async function claim(versions: Collection<StoreVersion>, store: string, version: number): Promise<boolean> {
  const now = new Date();
  try {
    const claimed = await versions.updateOne(
      { _id: store, version, $or: [{ claimed_until: { $exists: false } }, { claimed_until: { $lte: now } }] },
      { $set: { claimed_until: new Date(now.getTime() + CLAIM_MS) } },
      // The first step of a new store makes its document: a replica that loses that race finds the _id taken.
      { upsert: version === 0 },
    );
    return claimed.modifiedCount + claimed.upsertedCount === 1;
  } catch (error) {
    if ((error as { code?: unknown }).code === 11000) return false;
    throw error;
  }
}
