import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { monthOf } from '../../src/domain/plans.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { DESKTOP, PHONE, WIDER_THAN_VIEWPORT } from '../support/page-check.js';
import { callServer, type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const skipped = chromiumMissing('DASHBOARD USAGE BROWSER TESTS');
const PASSWORD = 'a passphrase of four words';
const EMAIL = 'owner@example.com';
/** The usage page against the plan (issue 46), in headless Chromium: with and without JavaScript, axe-clean at both widths. */
/** What the usage page's figures say beside `name`. */
const field = (page: Page, name: string) => page.locator(`dl.fields dt:text-is("${name}") + dd`).textContent();

describe.skipIf(skipped)('the dashboard usage page against the plan, in headless Chromium', () => {
  const data = tempDir();
  const profiles = [tempDir('nature-chromium-'), tempDir('nature-chromium-')];
  const env = { NATURE_DATA_DIR: data.path };
  let server: ServerProcess;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const created = await runCliInProcess(['users', 'create', '--email', EMAIL, '--password-stdin', '--json'], env, PASSWORD);
    const userId = JSON.parse(created.stdout).id as string;
    // Production access, as the operator's approval leaves it (the browser flow is dashboard-browser.test.ts's).
    const accounts = new SqliteAccountStore(join(data.path, 'keys.db'), 'FULL');
    const at = new Date().toISOString();
    await accounts.putApplication({
      account_id: ACCOUNT_ID,
      status: 'approved',
      organisation: 'Example Ltd',
      intended_use: 'onboarding questionnaires',
      expected_monthly_completions: 500,
      submitted_by: userId,
      submitted_at: at,
      decided_at: at,
      reason: null,
    });
    await accounts.close();
    expect((await runCliInProcess(['account', 'plan', 'set', 'standard', '--hard-cap'], env)).status).toBe(0);
    server = await startServer(env);
    const key = JSON.parse((await runCliInProcess(keyCreateArgs('live'), env)).stdout).key as string;
    for (let i = 0; i < 2; i += 1) {
      const subject = (await callServer(server, key, 'POST', '/v1/nature/subjects', validSubject())).body.id as string;
      const started = (await callServer(server, key, 'POST', `/v1/nature/subjects/${subject}/assessments`, {})).body.id as string;
      await callServer(server, key, 'PATCH', `/v1/nature/subjects/${subject}/assessments/${started}`, { responses: knownResponses });
    }
    await eventually(async () => {
      const { body } = await callServer(server, key, 'GET', '/v1/nature/usage');
      return body.quota.used === 2 ? true : undefined;
    });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    data.cleanup();
    for (const profile of profiles) profile.cleanup();
  });

  async function signedIn(javaScriptEnabled: boolean): Promise<Page> {
    const context = await launchChromium(profiles[contexts.length]!.path, DESKTOP, { javaScriptEnabled });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('API keys');
    return page;
  }

  it('shows production’s month against the plan as figures and a chart, with no serious axe violation at 1280 and 390 px', async () => {
    const page = await signedIn(true);
    await page.goto(`${server.url}/dashboard/production/usage`);
    expect({
      plan: await field(page, 'Plan'),
      included: await field(page, 'Included each month'),
      used: await field(page, 'Used this month'),
      left: await field(page, 'Left'),
      overage: await field(page, 'Overage'),
      cap: await field(page, 'Hard cap'),
    }).toEqual({
      plan: 'standard',
      included: '10,000 completed assessments',
      used: '2',
      left: '9,998',
      overage: '0 (metered, billed apart)',
      cap: '10,000',
    });
    const chart = page.getByRole('img', { name: `Completed assessments in ${monthOf(new Date())}, running total by day` });
    expect(await chart.count()).toBe(1);
    expect(await chart.locator('desc').textContent()).toBe(
      `2 of 10,000 included completed assessments used so far in ${monthOf(new Date())}, 9,998 left.`,
    );
    expect(await page.locator('figcaption').first().textContent()).toContain('against the hard cap (dashed line)');

    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(WIDER_THAN_VIEWPORT)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(DESKTOP);

    // The sandbox: free, no quota, no line; the same rate limit, the account's plan's.
    await page.goto(`${server.url}/dashboard/sandbox/usage`);
    expect(await field(page, 'Plan')).toBe('sandbox (always free)');
    expect(await field(page, 'Included each month')).toBe('no quota');
    expect(await field(page, 'Rate limit per key')).toBe('250 requests/s, burst 500');
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(PHONE);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('works without JavaScript: signed in through the forms, the page is whole', async () => {
    const page = await signedIn(false);
    await page.goto(`${server.url}/dashboard/production/usage`);
    expect(await page.locator('h2').first().textContent()).toBe('This month against the plan');
    expect(await page.locator('svg[role="img"] rect title').count()).toBeGreaterThanOrEqual(1);
  });
});
