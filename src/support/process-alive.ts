import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** This process among all that ever ran with its pid (a container's server is often pid 1 at every start). */
export const INSTANCE = randomUUID();

/** Where a holder (of a lock, a lease, a claim) ran: its pid, and when known its host name and its process's {@link INSTANCE}. */
export interface Holder {
  pid: number;
  host?: string;
  instance?: string;
}

/**
 * Whether the process that took something as `holder` is gone, so what it holds is free at once instead of
 * when its lease runs out. Only a process of this host can be looked for (another host's, or a container's
 * with its own process namespace and host name, cannot be seen), so a holder of another host never counts as
 * gone. A holder with this process's pid is gone only when its instance says it was an earlier process.
 */
export function holderGone(holder: Holder): boolean {
  if (holder.host !== undefined && holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return holder.instance !== undefined && holder.instance !== INSTANCE;
  return !processAlive(holder.pid);
}

/** Whether a process of this host runs with that pid (one of another user's too); a pid taken again since counts as alive. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
