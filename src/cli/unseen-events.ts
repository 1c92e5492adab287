/** An event as a listener keeps it (listed, or forwarded): enough to know it again, and to forget it once it is old. */
export interface Forwarded {
  id: string;
  created_at: string;
}

/**
 * How far back a listener looks for events it has not forwarded. Event ids are made where the event happens,
 * so with several servers an event can reach the list a little after a newer one: every poll reads back this
 * far before the newest forwarded event, and forwards what it has not seen.
 */
export const LOOKBACK_MS = 60_000;

const time = (event: Forwarded) => Date.parse(event.created_at);

/** The newest forwarded time, from which the look-back counts; undefined before the first. */
export function watermark(forwarded: readonly Forwarded[]): number | undefined {
  return forwarded.length === 0 ? undefined : Math.max(...forwarded.map(time));
}

/** True once `event` (listed newest first) is older than the look-back from `mark` (watermark): nothing after it in the list is new. */
export function pastLookback(event: Forwarded, mark: number | undefined): boolean {
  return mark !== undefined && time(event) < mark - LOOKBACK_MS;
}

/** Of `listed` (newest first, read back to the look-back), those not forwarded yet, oldest first. */
export function unseen<E extends Forwarded>(listed: readonly E[], forwarded: readonly Forwarded[]): E[] {
  const known = new Set(forwarded.map((event) => event.id));
  const mark = watermark(forwarded);
  return listed
    .filter((event) => !known.has(event.id) && !pastLookback(event, mark))
    .sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : 1));
}

/** `forwarded` with `event` added and what fell out of the look-back dropped: the state stays small. */
export function remember(forwarded: readonly Forwarded[], event: Forwarded): Forwarded[] {
  const all = [...forwarded, { id: event.id, created_at: event.created_at }];
  const mark = watermark(all)!;
  return all.filter((entry) => time(entry) >= mark - LOOKBACK_MS);
}
