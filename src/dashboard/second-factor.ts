import type { UserRecord } from '../domain/accounts.js';
import type { AccountStore } from '../ports/account-store.js';
import { FAILURE_WINDOW_MS } from './sign-in.js';

/** Wrong codes (and re-authentications) per user within the sign-in window: past these, none is checked until it moves on. */
export const CODE_FAILURES_PER_USER = 5;

export const THROTTLED = 'Too many wrong codes. Wait 15 minutes and try again.';

/**
 * `check` (a code, or a password and a code) counted against the user's wrong codes, as sign-in counts wrong
 * passwords: recorded before it runs, so attempts sent together cannot all slip under the limit, and taken back when
 * it passes. `throttled` without running it once the user is past the limit; undefined when it did not pass.
 */
export async function throttled<T>(
  accounts: AccountStore,
  user: UserRecord,
  now: Date,
  check: () => Promise<T | undefined>,
): Promise<T | 'throttled' | undefined> {
  const keys = [`two-factor:${user.id}`];
  const at = now.toISOString();
  const [failures = 0] = await accounts.recordFailure(keys, at, new Date(now.getTime() - FAILURE_WINDOW_MS).toISOString());
  if (failures > CODE_FAILURES_PER_USER) return 'throttled';
  const passed = await check();
  if (passed !== undefined) await accounts.forgetFailure(keys, at);
  return passed;
}
