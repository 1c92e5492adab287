import type { EventStoreDBClient } from '@eventstore/db-client';
import { BackendRefusal } from '../../support/operator-errors.js';

/**
 * Whether a server of `version` (as it reports itself: "24.10.5", "25.0.1.1234") has the fix for KDB-744: before
 * it, a filtered $all subscription could send a checkpoint at the position of an event not sent yet, and a
 * subscriber resuming from that checkpoint never got the event. Fixed in EventStoreDB 24.10.5 and KurrentDB
 * 25.0.1 (both May 2025) and in every release line after 25.0; a version that cannot be read is refused too.
 */
export function hasCheckpointFix(version: string): boolean {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return false;
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (major === 24 && minor === 10) return patch >= 5;
  if (major === 25 && minor === 0) return patch >= 1;
  return major > 25 || (major === 25 && minor > 0);
}

/** A server that answers but runs a version without the checkpoint fix: its message says so, in one line. */
export class UnsupportedServerError extends BackendRefusal {
  constructor(readonly version: string) {
    super(
      `runs version ${version}; the service needs EventStoreDB 24.10.5 or newer, or KurrentDB 25.0.1 or newer ` +
        '(the fix for KDB-744, without which the projector can skip an event); upgrade the server',
    );
  }
}

/**
 * The server's version as its ServerFeatures service reports it (the client asks once per connection and keeps
 * the answer), or "unknown" from a server older than that service. The client keeps it behind a protected member.
 */
export async function serverVersion(client: EventStoreDBClient): Promise<string> {
  // A protected member has no public type to reach it by: this cast is the adapter's one way in.
  const features = await (client as unknown as { capabilities: Promise<{ serverVersion: string }> }).capabilities;
  return features.serverVersion;
}
