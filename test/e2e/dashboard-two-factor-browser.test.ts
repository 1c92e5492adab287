import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Secret } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { filesContaining } from '../support/byte-scan.js';
import { checkPage as checkPageAt, DESKTOP } from '../support/page-check.js';
import { runCliProcess, type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { type Authenticator, nextCode } from '../support/two-factor.js';

const skipped = chromiumMissing('DASHBOARD TWO-FACTOR BROWSER TESTS');
const screenshots = fileURLToPath(new URL('../../test-results/dashboard-two-factor-browser/', import.meta.url));
const PASSWORD = 'a passphrase of four words';
const OWNER = 'owner@example.com';
const MEMBER = 'member@example.com';

describe.skipIf(skipped)('two-factor sign-in in headless Chromium', () => {
  const data = tempDir();
  const profile = tempDir('nature-chromium-');
  let server: ServerProcess;
  let context: BrowserContext;
  let page: Page;
  const owner: Authenticator = { secret: '', lastStep: 0 };
  const member: Authenticator = { secret: '', lastStep: 0 };
  let ownerCodes: string[] = [];
  let memberCodes: string[] = [];
  const complaints: string[] = [];
  const cli = (args: string[], stdin?: string) =>
    runCliProcess(args, { NATURE_DATA_DIR: data.path, PORT: new URL(server.url).port }, stdin);

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    server = await startServer({ NATURE_DATA_DIR: data.path });
    for (const email of [OWNER, MEMBER]) {
      const made = cli(['users', 'create', '--email', email, '--password-stdin'], PASSWORD);
      expect(made.status, made.stderr).toBe(0);
    }
    context = await launchChromium(profile.path, DESKTOP);
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') complaints.push(message.text());
    });
    page.on('pageerror', (error) => complaints.push(error.message));
  });
  afterAll(async () => {
    await context?.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    data.cleanup();
    profile.cleanup();
  });

  const checkPage = (name: string) => checkPageAt(page, screenshots, name);

  const heading = () => page.locator('h1').innerText();
  const alert = () => page.locator('[role="alert"]').innerText();

  async function signInWithPassword(email: string) {
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function enterCode(code: string) {
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
  }

  async function signOut() {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(heading).toBe('Sign in');
  }

  /** Sets up two-factor sign-in on the security page as a person does: the key read off the page, a code from it typed. */
  async function enrol(app: Authenticator, shot: string): Promise<string[]> {
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await expect.poll(() => page.getByRole('img', { name: 'QR code with the setup key for your authenticator app' }).count()).toBe(1);
    await checkPage(`${shot}-enrol`);
    app.secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    expect(app.secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('The six-digit code the app now shows').fill(await nextCode(app));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await expect.poll(() => page.locator('#recovery-codes li').count()).toBe(10);
    await checkPage(`${shot}-recovery-codes`);
    return page.locator('#recovery-codes li').allInnerTexts();
  }

  it('sets up two-factor sign-in with a code computed from the setup key the page shows; ten recovery codes shown once', async () => {
    await signInWithPassword(OWNER);
    await expect.poll(heading).toBe('API keys');
    await page.getByRole('link', { name: 'Security' }).click();
    await expect.poll(heading).toBe('Security');
    await checkPage('security-off');
    ownerCodes = await enrol(owner, 'owner');
    expect(new Set(ownerCodes).size).toBe(10);
    await page.reload();
    expect(await page.locator('#recovery-codes').count()).toBe(0);
    expect(await page.locator('main').innerText()).toContain('10 of 10 recovery codes left');
    await checkPage('security-on');
  });

  it('signs in with a code after the password, and refuses the same code again', async () => {
    await signOut();
    await signInWithPassword(OWNER);
    await expect.poll(heading).toBe('Two-factor sign-in');
    await checkPage('sign-in-code');
    const code = await nextCode(owner);
    await enterCode(code);
    await expect.poll(heading).toBe('API keys');

    await signOut();
    await signInWithPassword(OWNER);
    await expect.poll(heading).toBe('Two-factor sign-in');
    await enterCode(code);
    await expect.poll(alert).toContain('That code is not right, or was used already.');
    await checkPage('sign-in-code-refused');
    expect(await heading()).toBe('Two-factor sign-in');
  });

  it('takes a recovery code once, and not twice', async () => {
    await enterCode(ownerCodes[0]!);
    await expect.poll(heading).toBe('API keys');
    await signOut();
    await signInWithPassword(OWNER);
    await expect.poll(heading).toBe('Two-factor sign-in');
    await enterCode(ownerCodes[0]!);
    await expect.poll(alert).toContain('That code is not right, or was used already.');
    await enterCode(ownerCodes[1]!);
    await expect.poll(heading).toBe('API keys');
  });

  it('does not turn two-factor sign-in off without the password and a current code', async () => {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.locator('#off-password').fill('not my password at all');
    await page.locator('#off-code').fill(ownerCodes[2]!);
    await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await expect.poll(alert).toContain('That password and code do not match: nothing was changed.');
    await checkPage('security-refused');
    expect(await page.locator('main').innerText()).toContain('8 of 10 recovery codes left');
  });

  it('is required of every member by the owner: a member without it is led to set it up at their next sign-in', async () => {
    await page.getByRole('button', { name: 'Require two-factor sign-in of every member' }).click();
    await expect.poll(() => page.locator('[role="status"]').first().innerText()).toContain('Every member now signs in with a code');
    await checkPage('security-required');
    await signOut();

    await signInWithPassword(MEMBER);
    await expect.poll(heading).toBe('Security');
    expect(await page.locator('main').innerText()).toContain('This account requires two-factor sign-in: set it up here to go on');
    await checkPage('security-must-enrol');
    await page.getByRole('link', { name: 'API keys' }).click();
    await expect.poll(heading).toBe('Security');
    expect(page.url()).toBe(`${server.url}/dashboard/security`);
    memberCodes = await enrol(member, 'member');
    await page.getByRole('link', { name: 'API keys' }).click();
    await expect.poll(heading).toBe('API keys');
  });

  it('turns it off with the password and a current code; the requirement then leads back to setting it up', async () => {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.locator('#off-password').fill(PASSWORD);
    await page.locator('#off-code').fill(memberCodes[0]!);
    await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await expect.poll(() => page.locator('[role="status"]').first().innerText()).toContain('Two-factor sign-in is off');
    expect(await page.locator('main').innerText()).toContain('This account requires two-factor sign-in');
    await page.getByRole('link', { name: 'Activity' }).click();
    await expect.poll(heading).toBe('Security');
    // The refusals above are answered 401, which the browser notes; anything else (a script error, a policy broken) is a fault.
    expect(complaints.filter((complaint) => !complaint.includes('the server responded with a status of 401'))).toEqual([]);
  });

  it('keeps no setup key and no recovery code in plain text in the data directory, running and stopped', async () => {
    const secrets = [owner.secret, member.secret];
    const needles = [...secrets, ...secrets.map((secret) => Buffer.from(Secret.fromBase32(secret).bytes)), ...ownerCodes, ...memberCodes];
    expect(filesContaining(data.path, needles)).toEqual([]);
    server.process.kill('SIGTERM');
    await server.exited;
    expect(filesContaining(data.path, needles)).toEqual([]);
  });
});
