import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';

/** One TOTP time step. */
export const STEP_MS = 30_000;

/** The setup key the security page shows for manual entry, without the spaces it is grouped by. */
export function secretOnPage(page: string): string {
  const grouped = /id="totp-secret">([A-Z2-7 ]+)</.exec(page)?.[1];
  if (grouped === undefined) throw new Error(`no setup key in the page:\n${page.slice(0, 500)}`);
  return grouped.replace(/ /g, '');
}

/** The recovery codes a page shows once. */
export const recoveryCodesOnPage = (page: string) =>
  [...page.matchAll(/<li><code>([0-9A-Z]{4}(?:-[0-9A-Z]{4}){3})<\/code><\/li>/g)].map((m) => m[1]!);

/** The code an authenticator app shows for `secret` at `at` (otpauth, as the app computes it, independently of the service). */
export const appCode = (secret: string, at: Date) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() });

/** The code of time step `step` (the middle of it, as an app shows it then). */
export const codeOfStep = (secret: string, step: number) => appCode(secret, new Date(step * STEP_MS + STEP_MS / 2));

/** The time step `at` falls in. */
export const stepOf = (at: Date) => Math.floor(at.getTime() / STEP_MS);

/** A person's authenticator, as a test keeps it: the setup key read from the page, and the last step whose code was used. */
export interface Authenticator {
  secret: string;
  lastStep: number;
}

/**
 * The next code the person's app gives that the server has not seen: now's, or the next step's when now's was used
 * (the server accepts one step ahead of its clock). A third code within one 30-second step waits, as a person
 * waits for their app's next code, until the clock reaches the step before it.
 */
export async function nextCode(app: Authenticator): Promise<string> {
  const step = app.lastStep + 1;
  await expect.poll(() => stepOf(new Date()) >= step - 1, { timeout: 2 * STEP_MS, interval: 250 }).toBe(true);
  app.lastStep = Math.max(step, stepOf(new Date()));
  return codeOfStep(app.secret, app.lastStep);
}
