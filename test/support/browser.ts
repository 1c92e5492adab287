import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`; .ci/run installs it), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/** True when there is no Chromium to drive; says so loudly, so the skipped tests are never mistaken for passed ones. */
export function chromiumMissing(what: string): boolean {
  if (existsSync(CHROMIUM)) return false;
  console.error(
    `\n!!! ${what} SKIPPED: ${CHROMIUM} is not installed on this machine. Install it (apt-get install -y chromium;\n` +
      '!!! .ci/run does) and run npm test again. The skipped tests are reported as skipped, never as passed.\n',
  );
  return true;
}

/** What this machine needs of Chromium (no background networking: its network is closed). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Headless Chromium on a fresh user-data-dir (the caller makes and removes it), with the flags this machine needs (no
 * background networking: its network is closed); `javaScriptEnabled: false` for pages that must work without script.
 */
export function launchChromium(
  userDataDir: string,
  viewport = { width: 1200, height: 900 },
  { javaScriptEnabled = true }: { javaScriptEnabled?: boolean } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
    javaScriptEnabled,
  });
}

/** Headless Chromium whose contexts (a person signed in each, with cookies of their own) share one process; the caller closes it. */
export function launchChromiumBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
