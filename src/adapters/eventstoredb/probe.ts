import { EventStoreDBClient } from '@eventstore/db-client';

/**
 * Resolves once the EventStoreDB server at `url` answers a read of $all (what the projector's subscription
 * needs the service user to be allowed), or rejects: the client connects lazily, so a wrong host would
 * otherwise pass start-up and fail on every use.
 */
export async function probeEventStoreDb(url: string, timeoutMs: number): Promise<void> {
  const client = EventStoreDBClient.connectionString(url);
  try {
    for await (const _ of client.readAll({ maxCount: 1, deadline: timeoutMs })) break;
  } finally {
    await client.dispose();
  }
}
