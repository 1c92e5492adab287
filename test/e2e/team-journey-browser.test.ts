import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allows, routeAccess } from '../../src/dashboard/route-access.js';
import type { Role } from '../../src/domain/accounts.js';
import { chromiumMissing, launchChromiumBrowser } from '../support/browser.js';
import { checkPage as checkPageAt, DESKTOP } from '../support/page-check.js';
import { type ServerProcess, spawnFromSource, startServer } from '../support/processes.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { tempDir } from '../support/temp-dir.js';
import { type Authenticator, nextCode } from '../support/two-factor.js';

/**
 * The journey, end to end (issue 46): the operator adds the first owner, who invites a developer and a viewer
 * by mail through a real SMTP server; each joins, turns on two-factor sign-in with codes this test computes as an
 * authenticator app would, and signs in with them; each meets the permission table on every route; a removal ends a
 * live session; a recovery code signs in once.
 */
const skipped = chromiumMissing('TEAM JOURNEY BROWSER TESTS');

const screenshots = fileURLToPath(new URL('../../test-results/team-journey-browser/', import.meta.url));
const PASSWORD = 'a passphrase of four words';
const FROM = 'dashboard@nature.example.com';
const LINK = /(http:\/\/127\.0\.0\.1:\d+\/dashboard\/(?:setup|invitation)\?token=[\w-]{43})\n/;

/** A person with their browser, and their authenticator app (the setup key read off the Security page). */
interface Person extends Authenticator {
  email: string;
  role: Role;
  context: BrowserContext;
  page: Page;
  recoveryCodes: string[];
}

describe.skipIf(skipped)('the team journey in headless Chromium, with mail through a real SMTP server', () => {
  const data = tempDir();
  let smtp: TestSmtpServer;
  let server: ServerProcess;
  let browser: Browser;
  const people = {} as Record<'owner' | 'developer' | 'viewer', Person>;
  const mailEnv = () => ({ NATURE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, NATURE_MAIL_FROM: FROM });

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    smtp = await startSmtpServer();
    server = await startServer({ NATURE_DATA_DIR: data.path, ...mailEnv() });
    browser = await launchChromiumBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    await smtp?.stop();
    data.cleanup();
  });

  const checkPage = (page: Page, name: string) => checkPageAt(page, screenshots, name);

  async function newPerson(email: string, role: Role): Promise<Person> {
    const context = await browser.newContext({ viewport: DESKTOP });
    return { email, role, context, page: await context.newPage(), secret: '', lastStep: 0, recoveryCodes: [] };
  }

  const heading = (person: Person) => () => person.page.locator('h1').innerText();
  const status = (person: Person) => () => person.page.locator('[role="status"]').first().innerText();

  /** The link in the mail to `email`, as its reader would follow it. */
  async function mailedLink(email: string, subject: string): Promise<string> {
    const mail = await smtp.mailTo(email);
    expect(mail).toMatchObject({ mailFrom: FROM, rcptTo: [email], subject });
    return LINK.exec(mail.text)![1]!;
  }

  /** Sets two-factor sign-in up on the Security page as a person does: the key read off the page, a code from it typed. */
  async function enrol(person: Person, shot?: string) {
    const { page } = person;
    await page.getByRole('link', { name: 'Security' }).click();
    await expect.poll(heading(person)).toBe('Security');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await expect.poll(() => page.getByRole('img', { name: 'QR code with the setup key for your authenticator app' }).count()).toBe(1);
    if (shot) await checkPage(page, `${shot}-enrol`);
    person.secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('The six-digit code the app now shows').fill(await nextCode(person));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await expect.poll(() => page.locator('#recovery-codes li').count()).toBe(10);
    if (shot) await checkPage(page, `${shot}-recovery-codes`);
    person.recoveryCodes = await page.locator('#recovery-codes li').allInnerTexts();
  }

  async function signOut(person: Person) {
    await person.page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(heading(person)).toBe('Sign in');
  }

  /** The password, then `code` (the app's by default) on the two-factor page, which `shot` names a check of. */
  async function signIn(person: Person, code = () => nextCode(person), shot?: string) {
    const { page } = person;
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(heading(person)).toBe('Two-factor sign-in');
    if (shot) await checkPage(page, shot);
    await page.getByLabel('Code', { exact: true }).fill(await code());
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
  }

  it('the operator adds the first owner from the CLI; the set-up link comes by mail, and the owner turns on two-factor sign-in', async () => {
    const cli = spawnFromSource(['src/cli/main.ts', 'users', 'create', '--email', 'owner@example.com'], {
      NATURE_DATA_DIR: data.path,
      PORT: new URL(server.url).port,
      ...mailEnv(),
    });
    expect(await cli.exited, cli.output()).toBe(0);
    expect(cli.output()).not.toContain('/dashboard/setup');
    const owner = await newPerson('owner@example.com', 'owner');
    people.owner = owner;
    await owner.page.goto(await mailedLink(owner.email, 'Set up your access to the Nature Profile API dashboard'));
    await owner.page.getByLabel('New password').fill(PASSWORD);
    await owner.page.getByLabel('The same password again').fill(PASSWORD);
    await owner.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect.poll(heading(owner)).toBe('API keys');
    await enrol(owner, 'owner');
  });

  it('the owner invites a developer and a viewer; each invitation arrives by mail, and its link is not shown', async () => {
    const { page } = people.owner;
    await page.getByRole('link', { name: 'Members' }).click();
    for (const role of ['developer', 'viewer'] as const) {
      await page.getByLabel('E-mail address').fill(`${role}@example.com`);
      await page.getByLabel(role, { exact: true }).check();
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await expect.poll(status(people.owner)).toContain(`Invitation sent to ${role}@example.com, as ${role}`);
      expect(await page.locator('#invitation-link').count()).toBe(0);
    }
    for (const role of ['developer', 'viewer'] as const) {
      const mail = await smtp.mailTo(`${role}@example.com`);
      expect(mail.text).toContain(`owner@example.com invites you to join their account on the Nature Profile API dashboard as a ${role}`);
    }
  });

  it('each opens the mailed link, joins with a password, turns on two-factor sign-in, and signs in again with a code', async () => {
    for (const role of ['developer', 'viewer'] as const) {
      const person = await newPerson(`${role}@example.com`, role);
      people[role] = person;
      await person.page.goto(await mailedLink(person.email, 'You are invited to the Nature Profile API dashboard'));
      if (role === 'developer') await checkPage(person.page, 'invitation');
      await person.page.getByLabel('New password').fill(PASSWORD);
      await person.page.getByLabel('The same password again').fill(PASSWORD);
      await person.page.getByRole('button', { name: 'Join and sign in' }).click();
      await expect.poll(heading(person)).toBe('API keys');
      await enrol(person, role === 'viewer' ? 'viewer' : undefined);
      await signOut(person);
      await signIn(person, () => nextCode(person), role === 'viewer' ? 'sign-in-code' : undefined);
      await expect.poll(heading(person)).toBe('API keys');
      expect(await person.page.locator('.who').innerText()).toContain(`${person.email} · ${role}`);
    }
    await people.owner.page.goto(`${server.url}/dashboard/members`);
    const members = await people.owner.page.locator('table').first().innerText();
    for (const role of ['owner', 'developer', 'viewer']) expect(members).toMatch(new RegExp(`${role}@example\\.com.*\\s+${role}\\s+on`));
    await checkPage(people.owner.page, 'members');
  });

  /**
   * Every route of the table as `person`: a page answers 200 or 403 as the table says (a page that names a resource
   * is asked with one that does not exist, so 404 stands for "let in"), and a form their role may not send answers
   * 403 before it is read. Forms their role may send act, so the role walk of dashboard-members-browser sends them.
   */
  async function walk(person: Person): Promise<string[]> {
    const csrf = (await person.page.locator('input[name="_csrf"]').first().getAttribute('value'))!;
    const mismatches: string[] = [];
    for (const [route, access] of Object.entries(routeAccess)) {
      if (access === 'open') continue;
      const [method, pattern] = route.split(' ') as [string, string];
      const path = pattern.replace(':segment', 'sandbox').replace(':id', 'xyz_01M00000000000000000000000');
      const allowed = allows(access, person.role);
      if (method === 'GET') {
        const answer = (await person.page.goto(`${server.url}${path}`))!.status();
        const expected = allowed ? (pattern.includes(':id') ? [200, 404] : [200]) : [403];
        if (!expected.includes(answer)) mismatches.push(`${person.role} ${route}: ${answer}, the table says ${expected.join(' or ')}`);
      } else if (!allowed) {
        const answer = await person.context.request.post(`${server.url}${path}`, {
          form: { _csrf: csrf, _once: randomBytes(16).toString('base64url') },
          maxRedirects: 0,
        });
        if (answer.status() !== 403) mismatches.push(`${person.role} ${route}: ${answer.status()}, the table says 403`);
      }
    }
    return mismatches;
  }

  it('each sees only what their role allows: every route of the permission table, as each of them', async () => {
    for (const role of ['viewer', 'developer', 'owner'] as const) {
      const person = people[role];
      await person.page.goto(`${server.url}/dashboard/keys`);
      expect(await walk(person)).toEqual([]);
      // Signed in with two factors, they are still signed in after the walk.
      await person.page.goto(`${server.url}/dashboard/keys`);
      expect(await person.page.locator('.who').innerText()).toContain(`${person.email} · ${role}`);
    }
    await people.viewer.page.goto(`${server.url}/dashboard/keys`);
    expect(await people.viewer.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await people.developer.page.goto(`${server.url}/dashboard/keys`);
    expect(await people.developer.page.getByRole('button', { name: 'Create key' }).count()).toBe(1);
  });

  it('a recovery code signs in once in place of a code; the same code again is refused', async () => {
    const developer = people.developer;
    const [code] = developer.recoveryCodes;
    await signOut(developer);
    await signIn(developer, async () => code!);
    await expect.poll(heading(developer)).toBe('API keys');
    await signOut(developer);
    await signIn(developer, async () => code!);
    await expect
      .poll(() => developer.page.locator('[role="alert"]').innerText())
      .toBe('That code is not right, or was used already. Enter the code your app shows now.');
    expect(await developer.page.locator('h1').innerText()).toBe('Two-factor sign-in');
    await developer.page.getByLabel('Code', { exact: true }).fill(await nextCode(developer));
    await developer.page.getByRole('button', { name: 'Verify and sign in' }).click();
    await expect.poll(heading(developer)).toBe('API keys');
    await developer.page.getByRole('link', { name: 'Security' }).click();
    expect(await developer.page.locator('main').innerText()).toContain('9 of 10 recovery codes left');
  });

  it('removing the viewer ends their live session at once, and takes their two-factor sign-in with them', async () => {
    const { owner, viewer } = people;
    await viewer.page.goto(`${server.url}/dashboard/sandbox/events`);
    expect(await viewer.page.locator('h1').innerText()).toBe('Events');
    await owner.page.goto(`${server.url}/dashboard/members`);
    await owner.page.getByRole('link', { name: `Manage ${viewer.email}` }).click();
    await owner.page.getByLabel(`Remove ${viewer.email}`).check();
    await owner.page.getByRole('button', { name: 'Remove member' }).click();
    await expect.poll(status(owner)).toContain('The member is removed');
    await viewer.page.goto(`${server.url}/dashboard/sandbox/events`);
    expect(await viewer.page.locator('h1').innerText()).toBe('Sign in');
    // Their password and a code from their app no longer sign anyone in.
    await viewer.page.getByLabel('E-mail address').fill(viewer.email);
    await viewer.page.getByLabel('Password').fill(PASSWORD);
    await viewer.page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => viewer.page.locator('[role="alert"]').count()).toBe(1);
    expect(await viewer.page.locator('h1').innerText()).toBe('Sign in');
  });

  it('the activity names who did each member and two-factor action', async () => {
    const { page } = people.owner;
    await page.goto(`${server.url}/dashboard/activity`);
    const activity = await page.locator('table').innerText();
    for (const [who, action] of [
      ['owner@example.com', 'user.two_factor_enabled'],
      ['owner@example.com', 'invitation.created'],
      ['developer@example.com', 'invitation.accepted'],
      ['developer@example.com', 'user.two_factor_enabled'],
      ['developer@example.com', 'user.recovery_code_used'],
      ['owner@example.com', 'member.removed'],
    ])
      expect(activity).toMatch(new RegExp(`${who}\\s+${action!.replace('.', '\\.')}`));
  });
});
