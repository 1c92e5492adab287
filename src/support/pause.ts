import { Wakeup } from './wakeup.js';

/** Resolves after `ms`, or at once when the signal aborts (never rejects: a stop is not an error): a wait no one wakes. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Wakeup().wait(ms, signal);
}
