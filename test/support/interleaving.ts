import type { EventStore } from '../../src/ports/event-store.js';

/**
 * The real store, with every read and append yielding to the timer queue first, so that concurrent
 * commands in one process really interleave between their read and their append.
 */
export function interleaving(store: EventStore): EventStore {
  const later = <T>(work: () => Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => work().then(resolve, reject), 1));
  return {
    appendToStream: (...args) => later(() => store.appendToStream(...args)),
    appendToStreams: (...args) => later(() => store.appendToStreams(...args)),
    readStream: (...args) => later(() => store.readStream(...args)),
    readAll: (...args) => store.readAll(...args),
    subscribeToAll: (...args) => store.subscribeToAll(...args),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
