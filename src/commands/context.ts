import type { DataKeyStore } from '../ports/data-keys.js';
import type { EventStore } from '../ports/event-store.js';

/** What a command needs of its environment: the log, its data keys, and a way to wait until the read models show a write. */
export interface CommandContext {
  events: EventStore;
  dataKeys: DataKeyStore;
  projector: { waitFor(position: bigint, timeoutMs: number): Promise<boolean> };
}

/** How long a write waits for the read models to show it before answering anyway. */
export const READ_YOUR_WRITES_TIMEOUT_MS = 2000;
