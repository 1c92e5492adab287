import type { BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { type CodeBlock, gettingStarted, ofLang, runBlocks, servedGuide } from '../support/docs-blocks.js';
import { callServer, type ServerProcess, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/** The origins the guide's `test` publishable key allows: the host page is served on the second, never on another. */
const ALLOWED_ORIGIN = 'http://localhost:5173';
/** An origin the key does not allow: the same page there is refused. */
const OTHER_ORIGIN = 'http://localhost:5174';

/** expect.poll with room for a busy 2-core machine (its default gives up after 1 s). */
const poll = <T>(probe: () => Promise<T> | T, timeout = 60_000) => expect.poll(probe, { timeout, interval: 50 });

/** The reader's terminal variables a later paste relies on, as the test reads them off that terminal. */
const TERMINAL = ['NATURE_API_KEY', 'BASE', 'AUTH', 'SUBJECT'];

/** What the page the reader's server renders was handed, standing in for the guide's placeholders. */
interface Handed {
  publishableKey: string;
  subjectId: string;
  assessmentId: string;
  clientSecret: string;
}

/**
 * The guide's placeholders a reader fills with what their server handed the page (documented as such: "the ids
 * your server got when it started the assessment", "your `pk` key"); the secret first, as it contains the id's.
 */
const fillIn = (text: string, handed: Handed) =>
  text
    .replaceAll('asm_01M7…_secret_…', handed.clientSecret)
    .replaceAll('asm_01M7…', handed.assessmentId)
    .replaceAll('sub_01M7…', handed.subjectId)
    .replaceAll('test_pk_…', handed.publishableKey);

/** "#0a7d5a" → "rgb(10, 125, 90)", as getComputedStyle says it. */
const rgb = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
};

/** One declaration of the guide's stylesheet, e.g. "--nature-accent". */
const declared = (css: string, property: string) => {
  const value = new RegExp(`${property.replace(/[()]/g, '\\$&')}:\\s*([^;]+);`).exec(css)?.[1]?.trim();
  if (value === undefined) throw new Error(`the guide's CSS sets no ${property}`);
  return value;
};

/**
 * Compares a response example that shows some keys and "…" for the rest with a real answer: each key shown is
 * there, of the same type; a string shown in full is equal, one with "…" (an id, a secret) has the same shape.
 */
function expectShownKeys(example: string, real: Record<string, unknown>) {
  const shown = JSON.parse(example.replace(/,\s*…\s*\}\s*$/, ' }')) as Record<string, unknown>;
  expect(Object.keys(shown).length).toBeGreaterThan(3);
  for (const [key, value] of Object.entries(shown)) {
    expect(typeof real[key], key).toBe(typeof value);
    if (typeof value !== 'string' || !value.includes('…')) expect(real[key], key).toEqual(value);
    else {
      const shape = value
        .split(/[A-Za-z0-9]*…/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[A-Za-z0-9]+');
      expect(real[key], key).toMatch(new RegExp(`^${shape}$`));
    }
  }
}

/** The variables `declare -p` printed, by name. */
const terminalOf = (output: string) =>
  Object.fromEntries([...output.matchAll(/^declare -\S+ (\w+)="(.*)"$/gm)].map(([, name, value]) => [name!, value!]));

const skipped = chromiumMissing('EMBEDDING GUIDE BROWSER TESTS');

describe.skipIf(skipped)('/docs/embedding as the server serves it, every block run twice in a row', () => {
  let dir: ReturnType<typeof tempDir>;
  let profile: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let browser: BrowserContext | undefined;
  const servers = serverPool(() => env);
  beforeEach(() => {
    dir = tempDir();
    profile = tempDir('nature-chromium-docs-embedding-');
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    await browser?.close();
    await servers.killAll();
    profile.cleanup();
    dir.cleanup();
  });

  /** A page of `origin` whose document is `html`, served by the browser itself (no server listens there). */
  async function hostPage(origin: string, html: string) {
    const page = await browser!.newPage();
    const problems: string[] = [];
    const consoleMessages: ConsoleMessage[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => consoleMessages.push(message));
    await page.route(`${origin}/**`, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
    await page.goto(`${origin}/`);
    return { page, problems, consoleMessages };
  }

  /** The page a reader builds from the guide: the CSS in its head, the component, then the listening script. */
  const readersPage = (blocks: CodeBlock[], handed: Handed) =>
    [
      '<!doctype html>',
      '<html lang="en"><head><meta charset="utf-8"><title>Your assessment</title>',
      `<style>${ofLang(blocks, 'css')[0]}</style></head><body>`,
      fillIn(ofLang(blocks, 'html')[0]!, handed),
      `<script type="module">${ofLang(blocks, 'js')[0]}</script>`,
      '</body></html>',
    ].join('\n');

  const component = (page: Page) => page.locator('nature-assessment');
  const shadowStyle = (page: Page, selector: string, property: string) =>
    component(page).evaluate(
      (host, [selector, property]) => {
        const element = host.shadowRoot?.querySelector(selector!);
        return element ? host.ownerDocument.defaultView!.getComputedStyle(element).getPropertyValue(property!) : null;
      },
      [selector, property],
    );

  /** The terminal: getting-started's blocks, then the guide's first key, then the `test` key up to its `show` line. */
  async function mintKeys(server: ServerProcess, sh: string[]) {
    const [minting, showing] = sh[1]!.split(/^(?=npx nature keys show )/m);
    expect(showing).toMatch(/^npx nature keys show KEY_ID\s+# origins\s+\S/);
    const output = await runBlocks([...(await gettingStarted(server)), sh[0]!, minting!, `declare -p ${TERMINAL.join(' ')}`], {
      NATURE_DATA_DIR: dir.path,
    });
    expect(output).toMatch(/^key_\w+: production pk key "web app" with nature:read$/m);
    expect(output).toMatch(/^live_pk_\w+$/m);
    const testKey = /^(key_\w+): sandbox pk key "web app" with nature:read$/m.exec(output)?.[1];
    const publishableKey = /^(test_pk_\w+)$/m.exec(output)?.[1];
    expect(testKey).toBeDefined();
    expect(publishableKey).toBeDefined();
    const terminal = terminalOf(output);
    expect(Object.keys(terminal).sort()).toEqual([...TERMINAL].sort());
    expect(terminal.BASE).toBe(server.url);
    return { keyId: testKey!, publishableKey: publishableKey!, showing: showing!, terminal };
  }

  it('keys with origins, a hosted link, and a page of the html, js and css blocks in Chromium: themed, submitted, refused elsewhere', async () => {
    const server = await servers.start();
    const blocks = await servedGuide(server, 'embedding');
    expect(blocks.map((block) => block.lang)).toEqual(['json', 'html', 'js', 'css', 'sh', 'js', 'sh', 'json', 'sh']);
    const [assessmentExample, startBody] = ofLang(blocks, 'json');
    const [listening, patching] = ofLang(blocks, 'js');
    const css = ofLang(blocks, 'css')[0]!;
    const sh = ofLang(blocks, 'sh');
    // The page names this server: the module, the API of the raw fetch, the hosted link.
    expect(ofLang(blocks, 'html')[0]).toContain(`src="${server.url}/v1/embed/nature-assessment.js"`);
    expect(patching).toContain(`const api = '${server.url}';`);
    browser = await launchChromium(profile.path);
    // The host pages are public to Chromium (no server of theirs has an address) and the test's API is on loopback,
    // which Chromium lets a public page reach only with the person's leave: given here, as a reader's API is no
    // loopback server and asks for none.
    for (const origin of [ALLOWED_ORIGIN, OTHER_ORIGIN]) await browser.grantPermissions(['local-network-access'], { origin });

    const links: string[] = [];
    for (const run of [1, 2]) {
      // The keys: a live one for https://app.example.com, a test one for it and localhost:5173, shown with its origins.
      const { keyId, publishableKey, showing, terminal } = await mintKeys(server, sh);
      const expectedOrigins = /# origins\s+(.+)$/m.exec(showing)![1]!.trim();
      const shown = await runBlocks(
        // KEY_ID: the placeholder for the id `keys create` printed.
        [showing.replace('KEY_ID', keyId), sh[2]!],
        { NATURE_DATA_DIR: dir.path, ...terminal },
      );
      expect(shown).toMatch(new RegExp(`^origins\\s+${expectedOrigins.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
      expect(expectedOrigins.split(', ')).toContain(ALLOWED_ORIGIN);

      // The hosted link for the reader's subject, its return_url on the test key's origin.
      const link = JSON.parse(/^\{.*\}$/m.exec(shown)![0]) as Record<string, unknown>;
      expect(link, `run ${run}`).toMatchObject({
        object: 'assessment_link',
        subject_id: terminal.SUBJECT,
        status: 'active',
        language: 'fr',
        return_url: 'https://app.example.com/assessment-done',
      });
      expect(link.url as string).toMatch(new RegExp(`^${server.url}/a/test_lnk_\\w+_[\\w-]+$`));
      links.push(link.url as string);

      // The reader's server starts the assessment with the guide's body for a visible result; the 201 is the first example.
      const sk = terminal.NATURE_API_KEY!;
      const started = await callServer(server, sk, 'POST', `/v1/nature/subjects/${terminal.SUBJECT}/assessments`, JSON.parse(startBody!));
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      expect(started.body.result_visible_to_subject).toBe(true);
      expectShownKeys(assessmentExample!, started.body);
      // The same body is one for a hosted link too ("as for a start").
      const visibleLink = await callServer(
        server,
        sk,
        'POST',
        `/v1/nature/subjects/${terminal.SUBJECT}/assessment_links`,
        JSON.parse(startBody!),
      );
      expect(visibleLink.status).toBe(201);
      expect(visibleLink.body).toMatchObject({ language: 'en', result_visible_to_subject: true });
      const handed: Handed = {
        publishableKey,
        subjectId: terminal.SUBJECT!,
        assessmentId: String(started.body.id),
        clientSecret: String(started.body.client_secret),
      };

      // The raw fetch, in a page of the allowed origin: the answer it logs.
      const raw = await hostPage(
        ALLOWED_ORIGIN,
        `<!doctype html><html lang="en"><title>Batch</title><script type="module">${fillIn(patching!, handed)}</script></html>`,
      );
      // Until it logs, what went wrong instead (a script error, a refusal in the console) is what a failure shows.
      const logged = () =>
        raw.consoleMessages.some((message) => message.type() === 'log') || [raw.problems, raw.consoleMessages.map((m) => m.text())];
      await poll(logged).toBe(true);
      const log = raw.consoleMessages.find((message) => message.type() === 'log')!;
      const [status, answer] = await Promise.all(log.args().map((arg) => arg.jsonValue()));
      expect(status).toBe(200);
      expect(answer).toMatchObject({ id: handed.assessmentId, status: 'in_progress', responses_received: 1 });
      expect(raw.problems).toEqual([]);
      await raw.page.close();

      // First the page on an origin the key does not allow: nature:error, and the snippet's report gets code and
      // request id; nothing is stored, so the same assessment is then answered on the allowed origin.
      const refused = await hostPage(OTHER_ORIGIN, readersPage(blocks, handed));
      const reported = () =>
        refused.consoleMessages
          .filter((message) => message.type() === 'error')
          .map((message) => message.text())
          .find((text) => text.startsWith('nature-assessment: '));
      await poll(reported).toMatch(/^nature-assessment: insufficient_scope \(request req_\w+\)$/);
      const requestId = /request (req_\w+)/.exec(reported()!)![1]!;
      // The component shows the same request id, for the site owner to quote.
      await poll(() => component(refused.page).locator('[part="error"]').textContent()).toContain(requestId);
      expect(await refused.page.locator('nature-assessment + p').textContent()).toBe('');
      expect(refused.problems).toEqual([]);
      await refused.page.close();

      // The reader's page on the allowed origin: the items, styled by the guide's CSS.
      const page = readersPage(blocks, handed);
      const allowed = await hostPage(ALLOWED_ORIGIN, page);
      const items = component(allowed.page).locator('fieldset[part="item"]');
      await poll(() => items.count()).toBe(76);
      expect(await component(allowed.page).evaluate((host) => host.ownerDocument.defaultView!.getComputedStyle(host).fontFamily)).toBe(
        declared(css, '--nature-font'),
      );
      expect(await shadowStyle(allowed.page, 'fieldset', 'border-top-left-radius')).toBe(declared(css, '--nature-radius'));
      expect(await shadowStyle(allowed.page, 'fieldset', 'border-top-color')).toBe(rgb(declared(css, 'border-color')));
      for (let n = 0; n < 76; n++) {
        await items
          .nth(n)
          .locator('label[part="option"]')
          .nth((n * 7) % 5)
          .click();
        if (n === 0) {
          // The chosen answer is drawn in the guide's accent (once its border's transition has run).
          const chosen = 'fieldset label[part="option"]:has(input:checked)';
          await poll(() => shadowStyle(allowed.page, chosen, 'border-top-color')).toBe(rgb(declared(css, '--nature-accent')));
        }
      }
      // The snippet's handler of nature:submitted shows the page's own line below the component.
      const thanks = /note\.textContent = '([^']+)'/.exec(listening!)![1]!;
      await poll(() => allowed.page.locator('nature-assessment + p').textContent()).toBe(thanks);
      await poll(() => component(allowed.page).locator('[part="done-heading"]').textContent()).toBe('Thank you: all 76 answers are in.');
      // result_visible_to_subject: the component shows the person's result.
      await poll(() => component(allowed.page).locator('[part="result-heading"]').textContent()).toBe('Your result');
      const completed = await callServer(server, sk, 'GET', `/v1/nature/subjects/${handed.subjectId}/assessments/${handed.assessmentId}`);
      expect(completed.body.status).toBe('completed');
      expect(allowed.problems).toEqual([]);
      expect(allowed.consoleMessages.filter((message) => message.type() === 'error').map((message) => message.text())).toEqual([]);
      await allowed.page.close();
    }
    expect(new Set(links).size).toBe(2);
  }, 480_000);
});
