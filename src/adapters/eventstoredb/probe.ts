import { EventStoreDBClient } from '@eventstore/db-client';
import { hasCheckpointFix, serverVersion, UnsupportedServerError } from './server-version.js';

/**
 * Resolves once the EventStoreDB server at `url` answers a read of $all (what the projector's subscription
 * needs the service user to be allowed) and runs a version with the checkpoint fix; rejects otherwise, with an
 * UnsupportedServerError for a server too old. The client connects lazily, so a wrong host would otherwise
 * pass start-up and fail on every use.
 */
export async function probeEventStoreDb(url: string, timeoutMs: number): Promise<void> {
  const client = EventStoreDBClient.connectionString(url);
  try {
    for await (const _ of client.readAll({ maxCount: 1, deadline: timeoutMs })) break;
    const version = await serverVersion(client);
    if (!hasCheckpointFix(version)) throw new UnsupportedServerError(version);
  } finally {
    await client.dispose();
  }
}
