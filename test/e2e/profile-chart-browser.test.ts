import { mkdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intelligences, natures } from '../../src/scoring/constructs.js';
import { type Body, client } from '../support/api-client.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/temp-dir.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const skipped = chromiumMissing('PROFILE CHART BROWSER TESTS');

/** Every chart opened is kept here to look at after a run. */
const screenshots = fileURLToPath(new URL('../../test-results/profile-chart-browser/', import.meta.url));
const readmeImages = fileURLToPath(new URL('../../docs/images/', import.meta.url));
/** The README's screenshots are rewritten only when asked (NATURE_UPDATE_SCREENSHOTS=1): a run must not dirty the tree. */
const UPDATE_README = process.env.NATURE_UPDATE_SCREENSHOTS === '1';

const views = [
  { theme: 'light', width: 1600, readme: 'chart-desktop.png' },
  { theme: 'dark', width: 1600 },
  { theme: 'light', width: 320 },
  { theme: 'dark', width: 320 },
  { theme: 'dark', width: 360, readme: 'chart-phone.png' },
  { theme: 'light', width: 960 },
] as const;

describe.skipIf(skipped)('the profile chart opened in headless Chromium', () => {
  const chromiumProfile = tempDir('nature-chromium-');
  let t: TestApp;
  let browser: BrowserContext;
  let origin: string;
  let profile: Body;
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    t = await openTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const key = (await t.mint('test', 'sk', ['nature:read', 'nature:write'])).raw;
    const api = client(t, key);
    profile = await api.profileOf((await api.completeAssessment()).subjectId);
    browser = await launchChromium(chromiumProfile.path);
    // As a caller's server would fetch it, with its secret key; the browser sends nothing else.
    await browser.setExtraHTTPHeaders(auth(key));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    chromiumProfile.cleanup();
  });

  it.each(views)('renders at $width px in the $theme theme: within the width, no text over other text, every bar named', async (view) => {
    const { theme, width } = view;
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    try {
      await page.setViewportSize({ width, height: 800 });
      const url = `${origin}/v1/nature/profiles/${profile.id}/chart.svg?theme=${theme}&width=${width}`;
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe('image/svg+xml; charset=utf-8');

      // An SVG document that parses as XML, exactly as wide as asked, with nothing to scroll sideways.
      const shown = await page.evaluate(() => {
        // The page's globals: the tests are compiled without the DOM library.
        const { document, innerWidth } = globalThis as any;
        const root = document.documentElement;
        const box = root.getBoundingClientRect();
        return { element: root.localName, width: box.width, height: box.height, scrollWidth: root.scrollWidth, innerWidth };
      });
      expect(shown).toMatchObject({ element: 'svg', width, scrollWidth: width, innerWidth: width });
      const parsed = await page.evaluate(
        (source) => new (globalThis as any).DOMParser().parseFromString(source, 'image/svg+xml').getElementsByTagName('parsererror').length,
        await response!.text(),
      );
      expect(parsed).toBe(0);

      // Set in the real font: every line inside the chart's padding, and no two lines overlapping.
      const boxes = await page.locator('text').evaluateAll((texts) =>
        texts.map((text) => {
          const { left, right, top, bottom } = text.getBoundingClientRect();
          return { text: text.textContent ?? '', left, right, top, bottom };
        }),
      );
      const pad = width < 480 ? 16 : 32;
      for (const box of boxes) {
        expect(box.left, box.text).toBeGreaterThanOrEqual(pad - 1);
        expect(box.right, box.text).toBeLessThanOrEqual(width - pad + 1);
      }
      const overlapping = boxes.flatMap((one, index) =>
        boxes
          .slice(index + 1)
          .filter((other) => Math.min(one.right, other.right) - Math.max(one.left, other.left) > 0.5)
          .filter((other) => Math.min(one.bottom, other.bottom) - Math.max(one.top, other.top) > 0.5)
          .map((other) => `${one.text} / ${other.text}`),
      );
      expect(overlapping).toEqual([]);

      // What assistive technology reads: the chart's title, two named groups, a list item per construct, named in words.
      expect(await page.locator('svg > title').textContent()).toBe('Nature profile');
      for (const [group, constructs] of [
        ['Natures', natures],
        ['Intelligences', intelligences],
      ] as const) {
        const items = page.getByRole('group', { name: group }).getByRole('listitem');
        expect(await items.evaluateAll((elements) => elements.map((element) => element.id))).toEqual(
          constructs.map((construct) => `construct-${construct}`),
        );
      }
      const score = profile.intelligences.bodily_fine_motor as number;
      const named = `Bodily, fine motor: ${score.toFixed(2)} on a scale from 0 to 1, in the medium high band.`;
      expect(await page.getByRole('listitem', { name: named }).count()).toBe(1);
      expect(await page.locator('g[role="listitem"] > title').count()).toBe(19);

      // Loaded nothing but itself, and the API's policy (default-src 'none') blocked nothing it needs.
      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);

      await page.setViewportSize({ width, height: Math.ceil(shown.height) });
      const paths = [
        join(screenshots, `${theme}-${width}.png`),
        ...('readme' in view && UPDATE_README ? [join(readmeImages, view.readme)] : []),
      ];
      for (const path of paths) {
        await page.screenshot({ path });
        expect(statSync(path).size).toBeGreaterThan(20_000);
      }
    } finally {
      await page.close();
    }
  });
});
