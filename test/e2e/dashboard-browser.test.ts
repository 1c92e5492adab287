import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { knownResponses } from '../support/known-answers.js';
import { checkPage as checkPageAt, DESKTOP } from '../support/page-check.js';
import { callServer, runCliProcess, type ServerProcess, startServer } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

/** What of the page's globals the test reads (the test is compiled without the DOM's types). */
interface InPage {
  navigator: { clipboard: { readText(): Promise<string> } };
}

const skipped = chromiumMissing('DASHBOARD BROWSER TESTS');

/** Every page's screenshot, at both widths, to look at after a run; NATURE_UPDATE_SCREENSHOTS=1 also refreshes the README's. */
const screenshots = fileURLToPath(new URL('../../test-results/dashboard-browser/', import.meta.url));
const readmeImages = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const PASSWORD = 'a passphrase of four words';
const EMAIL = 'owner@example.com';

describe.skipIf(skipped)('the dashboard in headless Chromium', () => {
  const data = tempDir();
  const profile = tempDir('nature-chromium-');
  let server: ServerProcess;
  let context: BrowserContext;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const requested: string[] = [];
  const complaints: string[] = [];
  const cli = (...args: string[]) => runCliProcess(args, { NATURE_DATA_DIR: data.path, PORT: new URL(server.url).port });

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    server = await startServer({ NATURE_DATA_DIR: data.path });
    receiver = await startReceiver();
    context = await launchChromium(profile.path, DESKTOP);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') complaints.push(message.text());
    });
    page.on('pageerror', (error) => complaints.push(error.message));
  });
  afterAll(async () => {
    await context?.close();
    await receiver?.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    data.cleanup();
    profile.cleanup();
  });

  const checkPage = (name: string) => checkPageAt(page, screenshots, name);

  const rawKey = () => page.locator('#raw-key').innerText();
  const apiStatus = async (key: string) =>
    (await fetch(`${server.url}/v1/nature/subjects`, { headers: { authorization: `Bearer ${key}` } })).status;

  it('sets a password through the set-up link the CLI printed, signs out and signs in', async () => {
    const created = cli('users', 'create', '--email', EMAIL);
    expect(created.status, created.stderr).toBe(0);
    const link = created.stdout.trim();
    expect(link).toMatch(new RegExp(`^${server.url}/dashboard/setup\\?token=[A-Za-z0-9_-]+$`));
    await page.goto(link);
    await checkPage('setup');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('API keys');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.locator('[role="status"]').innerText()).toContain('You are signed out.');
    await checkPage('sign-in');
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('API keys');
    expect(await page.locator('.who').innerText()).toContain(EMAIL);
  });

  it('creates a sandbox sk key shown once with a copy button, and the API accepts it', async () => {
    await page.getByLabel('Name').fill('Staging server');
    await page.getByRole('button', { name: 'Create key' }).click();
    // The form is answered with a redirect to the keys page, which shows the raw key once.
    await expect.poll(() => page.locator('#raw-key').count()).toBe(1);
    await checkPage('key-created');
    const raw = await rawKey();
    expect(raw).toMatch(/^test_sk_[0-9A-Za-z]{40}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#raw-key-status').innerText()).toBe('Copied.');
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(raw);
    expect(await apiStatus(raw)).toBe(200);
  });

  it('rotates the key (the old one 401s at once) and revokes the new one after a confirmation', async () => {
    await page.goto(`${server.url}/dashboard/keys`);
    await checkPage('keys');
    const before = await page.locator('tr', { hasText: 'Staging server' }).locator('code').innerText();
    const old = await fetchKeyFromClipboard();
    expect(old.endsWith(before.slice(-4))).toBe(true);
    await page.getByRole('link', { name: 'Rotate Staging server' }).click();
    await checkPage('rotate');
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await expect.poll(() => page.locator('#raw-key').count()).toBe(1);
    const replacement = await rawKey();
    expect(await apiStatus(old)).toBe(401);
    expect(await apiStatus(replacement)).toBe(200);

    await page
      .locator('tr', { hasText: replacement.slice(-4) })
      .getByRole('link', { name: 'Revoke Staging server' })
      .click();
    await checkPage('revoke');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.locator('[role="status"]').first().innerText()).toContain('is revoked');
    expect(await apiStatus(replacement)).toBe(401);
  });

  /** The raw key the copy button put on the clipboard. */
  const fetchKeyFromClipboard = () => page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText());

  it('applies for production access; once the operator approves with the CLI, a live key can be created', async () => {
    await page.getByRole('link', { name: 'Production access' }).click();
    await page.getByLabel('Organisation').fill('Acme Coaching');
    await page.getByLabel('Intended use').fill('Development programmes: our coachees answer, their coaches read the profile.');
    await page.getByLabel('Expected completed assessments per month').fill('400');
    await page.getByRole('button', { name: 'Send application' }).click();
    await expect.poll(() => page.locator('.badge').innerText()).toBe('pending');
    await checkPage('production');
    await page.getByRole('link', { name: 'API keys' }).click();
    expect(await page.getByLabel('Production (live_)').isDisabled()).toBe(true);

    const approved = cli('applications', 'approve', 'acct_default');
    expect(approved.status, approved.stderr).toBe(0);
    await page.getByRole('link', { name: 'Production access' }).click();
    await expect.poll(() => page.locator('.badge').innerText()).toBe('approved');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('Production server');
    await page.getByLabel('Production (live_)').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const live = await rawKey();
    expect(live).toMatch(/^live_sk_/);
    expect(await apiStatus(live)).toBe(200);
  });

  it('adds an endpoint for a local receiver, sends a test event that verifies, lists its delivery, and redelivers a real event', async () => {
    await page.goto(`${server.url}/dashboard/keys`);
    await page.getByLabel('Name').fill('Webhook test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await rawKey();

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await checkPage('webhooks');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.locator('#signing-secret').innerText();
    expect(secret).toMatch(/^whsec_/);
    receiver.useSecret(secret);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const [test] = await receiver.waitFor(1);
    expect(test!.body).toContain('sub_0000000000000000000000TEST');
    expect(test!.verified.ok).toBe(true);
    const testId = String(test!.headers['webhook-id']);
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator('tbody').last().innerText();
      })
      .toContain(testId);
    expect(await page.locator('tbody').last().innerText()).toContain('200');

    // A real completion, so that there is an event to send again.
    const subject = await callServer(server, key, 'POST', '/v1/nature/subjects', validSubject());
    const assessment = await callServer(server, key, 'POST', `/v1/nature/subjects/${subject.body.id}/assessments`, {});
    await callServer(server, key, 'PATCH', `/v1/nature/subjects/${subject.body.id}/assessments/${assessment.body.id}`, {
      responses: knownResponses,
    });
    // The test event's ids name nothing (they end in TEST); deliveries may arrive in either order.
    const completed = (await receiver.waitFor(2)).find((received) => !received.body.includes('0000000000TEST'));
    expect(completed!.verified.ok).toBe(true);
    const eventId = String(completed!.headers['webhook-id']);
    await expect
      .poll(async () => {
        await page.reload();
        return page.getByRole('button', { name: `Redeliver ${eventId}` }).count();
      })
      .toBe(1);
    await checkPage('endpoint');
    await page.getByRole('button', { name: `Redeliver ${eventId}` }).click();
    await expect.poll(() => page.locator('[role="status"]').first().innerText()).toContain('queued again');
    const [, , again] = await receiver.waitFor(3);
    expect(again!.verified.ok).toBe(true);
    expect(again!.headers['webhook-id']).toBe(eventId);

    // The events list, filtered by type, with each event's JSON.
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Type').selectOption('nature.assessment.completed');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(page.url()).toContain('type=nature.assessment.completed');
    await checkPage('events');
    await page.getByRole('link', { name: eventId }).click();
    expect(JSON.parse(await page.getByLabel('The event as JSON').innerText())).toMatchObject({
      id: eventId,
      type: 'nature.assessment.completed',
    });
    await checkPage('event');

    // Completions per day, from the usage read model: today has one, for the key that completed it.
    await page.getByRole('link', { name: 'Usage' }).click();
    const today = new Date().toISOString().slice(0, 10);
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator(`svg rect title`, { hasText: `${today}: 1` }).count();
      })
      .toBe(1);
    expect(await page.locator('table').last().innerText()).toContain('Webhook test');
    await checkPage('usage');
  });

  it('lists every action with who made it', async () => {
    await page.getByRole('link', { name: 'Activity' }).click();
    const text = await page.locator('table').innerText();
    for (const action of [
      'key.created',
      'key.rotated',
      'key.revoked',
      'application.submitted',
      'application.approved',
      'webhook_endpoint.created',
      'webhook_endpoint.test_sent',
      'event.redelivered',
    ])
      expect(text).toContain(action);
    expect(text).toContain(EMAIL);
    expect(text).toContain('the operator');
    await checkPage('activity');
  });

  it('loaded nothing from elsewhere and broke no policy', () => {
    expect(requested.filter((url) => !url.startsWith(server.url))).toEqual([]);
    expect(complaints).toEqual([]);
  });

  it('signs out: the session cookie no longer opens a page', async () => {
    const session = (await context.cookies(`${server.url}/dashboard/keys`)).find((cookie) => cookie.name === 'nature_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Strict');
    expect(session.path).toBe('/dashboard');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Sign in');
    const replay = await fetch(`${server.url}/dashboard/keys`, {
      headers: { cookie: `nature_session=${session.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/dashboard\/sign-in/);
    if (process.env.NATURE_UPDATE_SCREENSHOTS === '1')
      for (const name of ['keys-desktop', 'keys-phone', 'endpoint-desktop', 'usage-desktop'])
        copyFileSync(join(screenshots, `${name}.png`), join(readmeImages, `dashboard-${name}.png`));
  });
});
