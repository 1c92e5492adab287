import type { ClientSession, Collection } from 'mongodb';
import type { ActivityRecord } from '../../domain/accounts.js';
import type { MongoConnection } from './client.js';

/** An entry of the account's activity (`activity`, in the keys database): the record with `_id` for its id. */
export type ActivityDocument = Omit<ActivityRecord, 'id'> & { _id: string };

/**
 * `write` in one transaction where the deployment runs them, so a change and the activity entry recording it
 * commit together; on a standalone server (NATURE_MONGODB_ALLOW_WEAK_WRITES) its writes run in turn, the entry
 * last, and a crash between them loses the entry.
 */
export function atomically(connection: MongoConnection, write: (session: ClientSession | undefined) => Promise<void>): Promise<void> {
  return connection.deployment.transactions ? connection.transaction(write) : write(undefined);
}

/** Appends `entry` (when there is one) in `session`. */
export async function recordActivity(
  activity: Collection<ActivityDocument>,
  entry: ActivityRecord | undefined,
  session: ClientSession | undefined,
): Promise<void> {
  if (entry === undefined) return;
  const { id, ...rest } = entry;
  await activity.insertOne({ _id: id, ...rest }, { session });
}
