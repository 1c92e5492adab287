import type { DomainEvent } from '../ports/event-store.js';
import { type EventMetadata, type EventStore, WrongExpectedRevisionError } from '../ports/event-store.js';
import { toNewEvents } from './handle-command.js';

/**
 * Writes a stream that is only ever written once, with the same events by whoever writes it: expecting no
 * stream, so a conflict means it is already there, which is as good.
 */
export async function appendOnce(
  store: EventStore,
  streamName: string,
  events: readonly DomainEvent[],
  metadata: EventMetadata,
): Promise<void> {
  try {
    await store.appendToStream(streamName, toNewEvents(events, metadata), 'no_stream');
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
}
