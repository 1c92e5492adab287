import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { mintKey } from '../../src/domain/api-keys.js';
import { items } from '../../src/scoring/item-bank.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/temp-dir.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const RETURN_ORIGIN = 'https://app.example.com';
const PHONE = { width: 390, height: 844 };
const CALLER = 'Acme Careers';
/** The answer to item n (1-based): every value of the scale, in no simple order. */
const valueFor = (n: number) => ((n * 7) % 5) + 1;

/** expect.poll with room for a busy 2-core machine (its default gives up after 1 s). */
const poll = <T>(probe: () => Promise<T> | T, timeout = 15_000) => expect.poll(probe, { timeout, interval: 50 });

const skipped = chromiumMissing('ASSESSMENT LINK BROWSER TESTS');

describe.skipIf(skipped)('a hosted assessment link, answered on a phone in headless Chromium', () => {
  const profile = tempDir('nature-chromium-links-');
  let t: TestApp;
  let sk: string;
  let origin: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    t = await openTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    sk = (await t.mint('test', 'sk')).raw;
    const pk = mintKey({ name: 'web', environment: 'test', type: 'pk', scopes: ['nature:read'], origins: [RETURN_ORIGIN] }, new Date());
    await t.keys.insert(pk.record);
    // The name the page shows is the organisation of the account's production-access application.
    await t.accounts.putApplication({
      account_id: ACCOUNT_ID,
      status: 'approved',
      organisation: CALLER,
      intended_use: 'Career guidance',
      expected_monthly_completions: 100,
      submitted_by: 'usr_test',
      submitted_at: new Date().toISOString(),
      decided_at: new Date().toISOString(),
      reason: null,
    });
    browser = await launchChromium(profile.path, PHONE);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    profile.cleanup();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { ...auth(sk), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, any>;
  };
  const linkFor = async (options: object) => {
    const subject = await api('POST', '/v1/nature/subjects', validSubject());
    const link = await api('POST', `/v1/nature/subjects/${subject.id}/assessment_links`, options);
    expect(link.url.startsWith(`${origin}/a/test_lnk_`)).toBe(true);
    return link;
  };

  /** The page, with what it logged as errors (a CSP violation included) and the return URL's visits answered here. */
  async function openPage(url: string) {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.route(`${RETURN_ORIGIN}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Back home</title><h1>Back home</h1>' }),
    );
    await page.goto(url);
    return { page, problems };
  }
  const component = (page: Page) => page.locator('nature-assessment');
  const item = (page: Page, n: number) => component(page).locator(`fieldset[data-item-id="${items[n - 1]!.id}"]`);
  const ending = (page: Page) =>
    component(page).evaluate((host) => {
      const heading = host.shadowRoot?.querySelector('[part="done-heading"]');
      return heading === null || heading === undefined || heading.closest('[hidden]') ? null : heading.textContent;
    });
  const fitsWidth = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

  async function answerAll(page: Page) {
    for (let n = 1; n <= items.length; n++) {
      await item(page, n)
        .locator('label[part="option"]')
        .nth(valueFor(n) - 1)
        .click();
    }
  }

  it('answers all 76 at phone width under the caller’s name, sees the ending and is taken back to return_url; no serious accessibility violation', async () => {
    const link = await linkFor({ return_url: `${RETURN_ORIGIN}/done`, result_visible_to_subject: false });
    const { page, problems } = await openPage(link.url);
    expect(await page.title()).toBe(`Your assessment · ${CALLER}`);
    expect(await page.locator('header').textContent()).toBe(CALLER);
    await poll(() => item(page, 76).count()).toBe(1);
    expect(await fitsWidth(page)).toBe(true);
    expect(await page.locator('#return').isVisible()).toBe(false);
    expect(await seriousViolations(page), 'start').toEqual([]);

    await answerAll(page);
    await poll(() => ending(page)).toBe('Thank you: all 76 answers are in.');
    const back = page.getByRole('link', { name: `Back to ${CALLER}` });
    await poll(() => back.isVisible()).toBe(true);
    expect(await seriousViolations(page), 'end').toEqual([]);
    const linkState = await api('GET', `/v1/nature/assessment_links/${link.id}`);
    expect(linkState.status).toBe('completed');

    // Reopened: the ending, not the items again, with the way back offered at once.
    const again = await openPage(link.url);
    await poll(() => ending(again.page)).toBe('Thank you: all 76 answers are in.');
    expect(await again.page.locator('#return').isVisible()).toBe(true);
    await again.page.close();

    await back.click();
    await page.waitForURL(`${RETURN_ORIGIN}/done`);
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);

  it('in French: the page and the component speak French, and a revoked link shows why, never the assessment', async () => {
    const link = await linkFor({ language: 'fr', return_url: `${RETURN_ORIGIN}/fin` });
    const { page, problems } = await openPage(link.url);
    expect(await page.evaluate('document.documentElement.lang')).toBe('fr');
    expect(await page.locator('h1').textContent()).toBe('Votre questionnaire');
    await poll(() => component(page).locator('[part="progress"]').textContent()).toBe('0 réponse sur 76');
    expect(await page.getByRole('link', { name: `Retour à ${CALLER}`, includeHidden: true }).count()).toBe(1);
    expect(await seriousViolations(page), 'French').toEqual([]);
    expect(problems).toEqual([]);

    await api('POST', `/v1/nature/assessment_links/${link.id}/revoke`);
    await page.reload();
    expect(await page.locator('h1').textContent()).toBe('Ce lien n’est plus valide');
    expect(await component(page).count()).toBe(0);
    expect(await seriousViolations(page), 'revoked').toEqual([]);
    await page.close();
  }, 120_000);
});
