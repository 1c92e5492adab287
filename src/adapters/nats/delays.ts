/**
 * Long waits on a NATS server without message scheduling (2.9): a message waits in a chain of hops, each
 * on one delay level, a subject whose messages all wait exactly that long. A level's messages therefore
 * fall due in the order they were stored, so its consumer never holds a message that is due behind many
 * that are not (a hop is cut short only to end at its message's due time, which happens only on the
 * shortest level, so only by less than a second); and the hops survive a server restart, with the time
 * each is due.
 */

/** The levels, shortest first: a wait of up to 10 h takes at most a dozen hops. */
export const DELAY_LEVELS_MS = [1_000, 5_000, 30_000, 300_000, 1_800_000, 10_800_000] as const;

export type DelayLevel = (typeof DELAY_LEVELS_MS)[number];

/** The level of the next hop towards a time `remainingMs` away: the longest that does not overshoot it, else the shortest. */
export function nextHop(remainingMs: number): DelayLevel {
  let level: DelayLevel = DELAY_LEVELS_MS[0];
  for (const candidate of DELAY_LEVELS_MS) if (candidate <= remainingMs) level = candidate;
  return level;
}

/**
 * When a hop on `level` that starts at `now` ends: after the level's wait, or at `dueAt` when that is
 * sooner, so a wait shorter than the shortest level (or a remainder of one) is not rounded up to it.
 */
export function hopEnd(now: number, dueAt: number, level: DelayLevel): number {
  return Math.min(dueAt, now + level);
}

/** A message on its way back to its topic. */
export interface Delayed {
  id: string;
  payload: unknown;
  /** Deliveries the message has had: its copy on the topic counts on from there. */
  deliveries: number;
  /** When it goes back to its topic (ms since the epoch). */
  dueAt: number;
  /** Hops taken so far: with the due time, it names each hop, so a hop published twice is stored once. */
  hop: number;
  /** When the current hop ends: its level's wait after it started, or `dueAt` when that is sooner. */
  hopUntil: number;
}

/** The first hop of a message due `delayMs` after `now`: its level, and the message as it waits on it. */
export function firstHop(
  message: Pick<Delayed, 'id' | 'payload' | 'deliveries'>,
  now: number,
  delayMs: number,
): { level: DelayLevel; delayed: Delayed } {
  const level = nextHop(delayMs);
  const dueAt = now + delayMs;
  return { level, delayed: { ...message, dueAt, hop: 0, hopUntil: hopEnd(now, dueAt, level) } };
}

/** Where a delayed message goes once its hop has ended: back to its topic, or on to another hop. */
export function afterHop(delayed: Delayed, now: number): { kind: 'due' } | { kind: 'hop'; level: DelayLevel; next: Delayed } {
  const remaining = delayed.dueAt - now;
  if (remaining <= 0) return { kind: 'due' };
  const level = nextHop(remaining);
  return { kind: 'hop', level, next: { ...delayed, hop: delayed.hop + 1, hopUntil: hopEnd(now, delayed.dueAt, level) } };
}
