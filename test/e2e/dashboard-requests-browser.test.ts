import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { keyCreateArgs } from '../support/cli.js';
import { checkPage as checkPageAt, DESKTOP } from '../support/page-check.js';
import { callServer, runCliProcess, type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const skipped = chromiumMissing('DASHBOARD REQUESTS BROWSER TESTS');
const screenshots = fileURLToPath(new URL('../../test-results/dashboard-browser/', import.meta.url));
const readmeImages = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const PASSWORD = 'a passphrase of four words';
const EXT = 'BROWSER-LOGS-EXT-41d2';

describe.skipIf(skipped)("the dashboard's Requests page in headless Chromium", () => {
  const data = tempDir();
  const profile = tempDir('nature-chromium-');
  const scriptless = tempDir('nature-chromium-');
  let server: ServerProcess;
  let context: BrowserContext;
  let page: Page;
  /** A second browser with script switched off: the filters and the links work without it. */
  let noScript: BrowserContext;
  const cli = (...args: string[]) => runCliProcess(args, { NATURE_DATA_DIR: data.path, PORT: new URL(server.url).port });
  let refusedId = '';

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    server = await startServer({ NATURE_DATA_DIR: data.path });
    context = await launchChromium(profile.path, DESKTOP);
    noScript = await launchChromium(scriptless.path, DESKTOP, { javaScriptEnabled: false });
    page = await context.newPage();
    const key = JSON.parse(cli(...keyCreateArgs('test', 'Staging server')).stdout).key as string;
    // A subject made, looked up, made again (409), and a few reads: a page of requests of both kinds.
    const created = await callServer(server, key, 'POST', '/v1/nature/subjects', validSubject(EXT));
    await callServer(server, key, 'GET', `/v1/nature/subjects/${created.body.id}`);
    const refused = await callServer(server, key, 'POST', '/v1/nature/subjects', validSubject(EXT));
    refusedId = refused.body.request_id;
    await callServer(server, key, 'GET', '/v1/nature/subjects?limit=10');
    await callServer(server, key, 'GET', '/v1/nature/events?limit=5');
    const link = cli('users', 'create', '--email', 'owner@example.com').stdout.trim();
    await page.goto(link);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(/\/dashboard\/keys/);
  });
  afterAll(async () => {
    await context?.close();
    await noScript?.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    data.cleanup();
    profile.cleanup();
    scriptless.cleanup();
  });

  const checkPage = (name: string) => checkPageAt(page, screenshots, name);

  it('lists the requests from the navigation, newest first, with no personal value shown', async () => {
    await page.getByRole('link', { name: 'Requests' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Requests');
    // The requests are written a second or so after they are answered: the page shows them on a reload.
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator('tbody tr').count();
      })
      .toBe(5);
    const paths = await page.locator('tbody tr td:nth-child(3)').allInnerTexts();
    expect(paths[0]).toBe('/v1/nature/events?limit=5');
    expect(paths.at(-1)).toBe('/v1/nature/subjects');
    expect(await page.locator('main').innerText()).not.toContain(EXT);
    await checkPage('requests');
  });

  it('filters by status class with the form and opens a request, with script switched off', async () => {
    const bare = await noScript.newPage();
    await bare.goto(`${server.url}/dashboard/sandbox/requests`);
    await bare.getByLabel('E-mail address').fill('owner@example.com');
    await bare.getByLabel('Password').fill(PASSWORD);
    await bare.getByRole('button', { name: 'Sign in' }).click();
    await bare.waitForURL(/\/dashboard\/sandbox\/requests$/);
    await bare.getByLabel('Status').selectOption('4xx');
    await bare.getByRole('button', { name: 'Filter' }).click();
    await bare.waitForURL(/status=4xx/);
    expect(await bare.locator('tbody tr').count()).toBe(1);
    expect(await bare.locator('tbody tr').innerText()).toContain('409');
    await bare.locator('tbody tr a').click();
    await bare.waitForURL(new RegExp(`/dashboard/sandbox/requests/${refusedId}$`));
    expect(await bare.locator('h1').innerText()).toBe(`Request ${refusedId}`);
  });

  it("opens one request's page with every field and the problem it sent", async () => {
    await page.getByRole('link', { name: '/v1/nature/subjects', exact: true }).first().click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Request ${refusedId}`);
    const text = await page.locator('main').innerText();
    for (const shown of [
      'POST',
      '/v1/nature/subjects',
      '409',
      'Staging server',
      '"code": "subject_exists"',
      `"request_id": "${refusedId}"`,
    ])
      expect(text).toContain(shown);
    expect(text).toContain('"external_subject_id": ‹external_subject_id›');
    expect(text).not.toContain(EXT);
    await checkPage('request');
    if (process.env.NATURE_UPDATE_SCREENSHOTS === '1')
      copyFileSync(join(screenshots, 'requests-desktop.png'), join(readmeImages, 'dashboard-requests-desktop.png'));
  });
});
