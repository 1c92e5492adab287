import { Secret, TOTP } from 'otpauth';

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
