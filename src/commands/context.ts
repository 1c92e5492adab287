import type { EventStore } from '../ports/event-store.js';

/** What a command needs of its environment: the log, and a way to wait until the read models show a write. */
export interface CommandContext {
  events: EventStore;
  projector: { waitFor(position: bigint, timeoutMs: number): Promise<boolean> };
}
