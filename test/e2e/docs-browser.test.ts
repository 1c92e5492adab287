import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guides as servedGuides } from '../../src/http/docs/render.js';
import { problemCodes } from '../../src/http/problem.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const skipped = chromiumMissing('DOCS BROWSER TESTS');

/** Where the screenshots go, to look at after a run. */
const screenshots = fileURLToPath(new URL('../../test-results/docs-browser/', import.meta.url));

const guides = [
  { path: '/docs', title: 'Nature Profile API documentation', shot: 'index' },
  ...servedGuides.map(({ slug, title }) => ({ path: `/docs/${slug}`, title, shot: slug })),
];

/** The elements Markdown renders into, and the page's frame: anything else is HTML that slipped through. */
const RENDERED_TAGS = new Set(
  'html head meta title style body header nav main footer section a h1 h2 h3 h4 p pre code ul ol li table thead tbody tr th td strong em blockquote hr br'.split(
    ' ',
  ),
);

describe.skipIf(skipped)('the docs in headless Chromium', () => {
  const data = tempDir();
  const profile = tempDir('nature-chromium-');
  let server: ServerProcess;
  let browser: BrowserContext;
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    server = await startServer({ NATURE_DATA_DIR: data.path, NATURE_WEBHOOK_RETRY_SCHEDULE: '5s,5m,30m' });
    browser = await launchChromium(profile.path);
  });
  afterAll(async () => {
    await browser?.close();
    server?.process.kill('SIGTERM');
    await server?.exited;
    data.cleanup();
    profile.cleanup();
  });

  /** Opens a page and records what it asked for and what the console complained about (a blocked stylesheet, say). */
  async function open(path: string): Promise<{ page: Page; requests: string[]; problems: string[] }> {
    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const response = await page.goto(`${server.url}${path}`);
    expect(response?.status(), path).toBe(200);
    return { page, requests, problems };
  }

  it.each(guides)('renders $path: heading, navigation, styles, nothing raw, nothing from elsewhere', async ({ path, title, shot }) => {
    const { page, requests, problems } = await open(path);
    try {
      await expect.poll(() => page.locator('h1').innerText()).toBe(title);
      expect(await page.title()).toBe(`${path === '/docs' ? 'Documentation' : title} · Nature Profile API`);
      expect(await page.locator('nav a').allInnerTexts()).toEqual([
        'Docs',
        'Getting started',
        'API conventions',
        'Assessments and profiles',
        'Assessments in French',
        'Answer quality',
        'Webhooks',
        'Embedding the assessment',
        'TypeScript client',
        'MCP for agents',
        'Careers',
        'How careers are matched',
        'Situational assessments',
        'Personal data',
        'Usage',
        'Errors',
        'API reference',
        'OpenAPI document',
      ]);
      // The inline stylesheet applied (the page's Content-Security-Policy lets exactly it through).
      expect(await page.locator('main').evaluate((main) => main.ownerDocument.defaultView!.getComputedStyle(main).maxWidth)).toBe('960px');
      expect(problems).toEqual([]);
      expect(
        requests.every((url) => url.startsWith(server.url)),
        requests.join(', '),
      ).toBe(true);

      const tags = await page.locator('*').evaluateAll((elements) => [...new Set(elements.map((element) => element.localName))]);
      expect(tags.filter((tag) => !RENDERED_TAGS.has(tag))).toEqual([]);
      // Outside code blocks, where a shell comment's `# ` is meant.
      const text = (await page.locator('header, main > :not(pre)').allInnerTexts()).join('\n');
      expect(text).not.toMatch(/^#{1,6} |\*\*|```|\]\(|\{\{/m);
      expect(await seriousViolations(page)).toEqual([]);

      await page.screenshot({ path: join(screenshots, `${shot}.png`), fullPage: true });
      expect(statSync(join(screenshots, `${shot}.png`)).size).toBeGreaterThan(10_000);
    } finally {
      await page.close();
    }
  });

  it('shows code blocks as code, and the API key placeholder as text', async () => {
    const { page } = await open('/docs/getting-started');
    try {
      const blocks = await page.locator('pre code').allInnerTexts();
      expect(blocks.length).toBeGreaterThanOrEqual(5);
      expect(blocks[0]).toContain('npx nature keys create --env test --type sk');
      expect(
        await page
          .locator('pre code')
          .first()
          .evaluate((code) => code.ownerDocument.defaultView!.getComputedStyle(code).fontFamily),
      ).toMatch(/monospace/);
      expect(await page.locator('main').innerText()).toContain('Authorization: Bearer <API key>');
    } finally {
      await page.close();
    }
  });

  it('shows the error catalogue as a table with every code the server answers with', async () => {
    const { page } = await open('/docs/errors');
    try {
      expect(await page.locator('table').first().locator('th').allInnerTexts()).toEqual([
        'status',
        'code',
        'what it means',
        'how to fix it',
      ]);
      const rows = await page
        .locator('table')
        .first()
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText)));
      expect(Object.fromEntries(rows.map(([status, code]) => [code, Number(status)]))).toEqual(
        Object.fromEntries(Object.entries(problemCodes).map(([code, { status }]) => [code, status])),
      );
      expect(rows.find(([, code]) => code === 'unauthenticated')?.[3]).toContain('Authorization: Bearer <API key>');
    } finally {
      await page.close();
    }
  });

  it("shows the webhook guide's verification code and this server's retry schedule", async () => {
    const { page } = await open('/docs/webhooks');
    try {
      expect(await page.locator('pre code').allInnerTexts()).toContainEqual(
        expect.stringContaining("webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>)"),
      );
      const schedule = await page
        .locator('table')
        .nth(1)
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText)));
      expect(schedule).toEqual([
        ['1', 'when the event happens', '—'],
        ['2', '5 s after attempt 1 failed', '5 s'],
        ['3', '5 min after attempt 2 failed', '5.1 min'],
        ['4', '30 min after attempt 3 failed', '35 min'],
      ]);
      expect(await page.locator('main').innerText()).toContain('4 attempts in all');
    } finally {
      await page.close();
    }
  });

  it('links the pages to each other: every link on them resolves, anchors included', async () => {
    const checked = new Set<string>();
    for (const { path } of guides) {
      const { page } = await open(path);
      try {
        const links = await page
          .locator('a[href]')
          .evaluateAll((anchors) => anchors.map((anchor) => new URL(anchor.getAttribute('href')!, anchor.baseURI).href));
        for (const link of links.filter((href) => href.startsWith(server.url))) {
          if (checked.has(link)) continue;
          checked.add(link);
          const target = await browser.newPage();
          try {
            const response = await target.goto(link);
            expect(response?.status(), `${link} (linked from ${path})`).toBe(200);
            const anchor = new URL(link).hash.slice(1);
            if (anchor) expect(await target.locator(`[id="${anchor}"]`).count(), link).toBe(1);
          } finally {
            await target.close();
          }
        }
        // Links elsewhere are only to the Standard Webhooks, Model Context Protocol and O*NET sites, over https.
        const elsewhere = ['https://www.standardwebhooks.com', 'https://modelcontextprotocol.io', 'https://www.onetcenter.org'];
        expect(
          links.filter((href) => !href.startsWith(server.url)).filter((href) => !elsewhere.some((site) => href.startsWith(site))),
        ).toEqual([]);
      } finally {
        await page.close();
      }
    }
    for (const path of ['/docs', ...servedGuides.map(({ slug }) => `/docs/${slug}`), '/v1/docs', '/v1/openapi.json'])
      expect(checked).toContain(`${server.url}${path}`);
  });

  it('shows the API reference introduction at /v1/docs as text, with a link to these guides', async () => {
    const { page } = await open('/v1/docs');
    try {
      const description = page.locator('.swagger-ui .info .description');
      await description.waitFor();
      expect(await description.innerText()).toContain('Bearer <API key>');
      expect(await description.locator('a[href^="/docs"]').count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(screenshots, 'api-reference.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('offers this server in the API reference, and its Try it out calls it', async () => {
    const { page, requests, problems } = await open('/v1/docs');
    try {
      const servers = page.locator('.swagger-ui .servers select option');
      await expect.poll(() => servers.allInnerTexts()).toEqual([server.url]);
      const operation = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/v1/nature/items"]') });
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      // Without a key the server answers 401: the call reached it.
      await expect.poll(() => operation.locator('.live-responses-table tbody .response-col_status').innerText()).toBe('401');
      // Try it out fills in the language's default.
      expect(await operation.locator('.request-url pre').innerText()).toBe(`${server.url}/v1/nature/items?language=en`);
      expect(requests).toContain(`${server.url}/v1/nature/items?language=en`);
      await page.screenshot({ path: join(screenshots, 'api-reference-try-it-out.png'), fullPage: true });
      // Its policy lets everything it renders apply: no blocked style or script in the console. The 401 is the one
      // Try it out asked for, which the browser logs as a failed resource.
      expect(problems.filter((problem) => !/401 \(Unauthorized\)/.test(problem))).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
