import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Example, startExample } from '../../examples/embed/example.js';
import { words } from '../../packages/embed/src/words.js';
import { items } from '../../src/scoring/item-bank.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { callServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

// Issue 45, point 6: one statement per screen on phones (layout="single"), and a sticky progress bar that never
// covers the item or the ending the component scrolls to, in either layout.

const screenshots = fileURLToPath(new URL('../../test-results/embed-single-browser/', import.meta.url));
/** The README's screenshots, rewritten only when asked (NATURE_UPDATE_SCREENSHOTS=1): a run must not dirty the tree. */
const readmeImages = fileURLToPath(new URL('../../examples/embed/screenshots/', import.meta.url));
const UPDATE_README = process.env.NATURE_UPDATE_SCREENSHOTS === '1';

const TOTAL = 76;
const PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1280, height: 800 };
const itemId = (n: number) => items[n - 1]!.id;
/** The answer the person gives to item n: every value of the scale, in no simple order. */
const valueFor = (n: number) => ((n * 7) % 5) + 1;

/** expect.poll with room for a busy 2-core machine (its default gives up after 1 s). */
const poll = <T>(probe: () => Promise<T> | T, timeout = 15_000) => expect.poll(probe, { timeout, interval: 50 });

const skipped = chromiumMissing('EMBED SINGLE-LAYOUT BROWSER TESTS');

describe.skipIf(skipped)('<nature-assessment> one statement at a time, and clear of its sticky progress bar, in headless Chromium', () => {
  const profile = tempDir('nature-chromium-single-');
  let example: Example;
  let browser: BrowserContext;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    example = await startExample({ port: 0 });
    browser = await launchChromium(profile.path);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await example?.stop();
    profile.cleanup();
  });

  const sk = (method: string, path: string, body?: unknown) =>
    callServer({ url: example.apiUrl }, example.secretKey.key, method, path, body);

  /** A new visitor (so a new assessment) on the example page, at `viewport`; records the page's script errors. */
  async function openNew(viewport: { width: number; height: number }) {
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.setViewportSize(viewport);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    expect((await page.goto(example.pageUrl))?.status()).toBe(200);
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    const assessmentId = await component(page).getAttribute('assessment-id');
    const subjectId = await component(page).getAttribute('subject-id');
    return { page, pageErrors, path: `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}` };
  }

  const component = (page: Page) => page.locator('nature-assessment');
  const progressText = (page: Page) => component(page).locator('[part="progress"]').textContent();
  const item = (page: Page, n: number) => component(page).locator(`fieldset[data-item-id="${itemId(n)}"]`);
  const position = (page: Page) => component(page).locator('[part="position"]');
  const setLayout = (page: Page, layout: string | null) =>
    component(page).evaluate(
      (host, value) => (value === null ? host.removeAttribute('layout') : host.setAttribute('layout', value)),
      layout,
    );
  /** The layout as the person meets it: the numbers of the items shown (1-based) and whether Back and Next show. */
  const shown = (page: Page) =>
    component(page).evaluate((host: any) => {
      const visible = (element: any) => element !== null && element.getClientRects().length > 0;
      const fieldsets = [...host.shadowRoot.querySelectorAll('fieldset')];
      return {
        items: fieldsets.flatMap((fieldset, i) => (visible(fieldset) ? [i + 1] : [])),
        pager: visible(host.shadowRoot.querySelector('[part="pager"]')),
      };
    });
  const single = (n: number) => ({ items: [n], pager: true });
  const list = { items: Array.from({ length: TOTAL }, (_, i) => i + 1), pager: false };
  const checkedValue = (page: Page, n: number): Promise<string | null> =>
    item(page, n).evaluate((fieldset) => fieldset.querySelector('input[type="radio"]:checked')?.getAttribute('value') ?? null);
  /** The radio that has the focus inside the component, as `item_id=value`. */
  const focusedRadio = (page: Page) =>
    component(page).evaluate((element) => {
      const active = element.shadowRoot?.activeElement;
      return active ? `${active.getAttribute('name')}=${active.getAttribute('value')}` : null;
    });
  /**
   * Where the sticky progress bar (its whole header: progress and failures) ends, and where the focused item (the
   * fieldset that holds the focus) or the ending's heading lies, as bounding rectangles in the viewport.
   */
  const underBar = (page: Page, what: 'focused item' | 'ending heading') =>
    component(page).evaluate((host: any, target) => {
      const root = host.shadowRoot;
      const element = target === 'ending heading' ? root.querySelector('[part="done-heading"]') : root.activeElement?.closest('fieldset');
      if (!element) return null;
      const bar = root.querySelector('.top').getBoundingClientRect();
      const box = element.getBoundingClientRect();
      // What must be on screen: the heading; of an item, the answer that has the focus (an item may be taller than the screen).
      const bottom = target === 'ending heading' ? box.bottom : root.activeElement.getBoundingClientRect().bottom;
      return {
        id: element.dataset.itemId ?? element.textContent,
        focused: host.ownerDocument.activeElement === host && (root.activeElement === element || element.contains(root.activeElement)),
        // Its top clear of the bar (the bar's bottom edge; half a pixel for rounding), and on screen.
        clear: box.top >= bar.bottom - 0.5 && bottom <= host.ownerDocument.defaultView.innerHeight,
        barBottom: Math.round(bar.bottom),
        top: Math.round(box.top),
      };
    }, what);
  /** Whether the page has stopped scrolling (a smooth scroll moves it from one frame to the next). */
  const scrollSettled = async (page: Page) =>
    (await page.evaluate(`new Promise((done) => {
      const before = scrollY;
      requestAnimationFrame(() => requestAnimationFrame(() => done(scrollY === before)));
    })`)) as boolean;
  const events = async (page: Page) => (await page.evaluate('window.natureEvents')) as { type: string; detail: Record<string, unknown> }[];
  /** What the API stored, polled until `predicate` holds. */
  const stored = (path: string, predicate: (body: Record<string, any>) => boolean) =>
    eventually(async () => {
      const { body } = await sk('GET', path);
      return predicate(body) ? body : undefined;
    }, 15_000);
  /** The answers the API holds for the assessment: the last value per item in the subject's history. */
  async function storedValues(path: string) {
    const subjectId = path.split('/')[4]!;
    const audit = await sk('GET', `/v1/nature/subjects/${subjectId}/audit?limit=100`);
    const values = new Map<string, number>();
    for (const entry of [...audit.body.data].sort(
      (a, b) => String(a.occurred_at).localeCompare(String(b.occurred_at)) || String(a.id).localeCompare(String(b.id)),
    )) {
      if (entry.type !== 'responses.submitted') continue;
      for (const response of entry.data.responses as { item_id: string; value: number }[]) values.set(response.item_id, response.value);
    }
    return Object.fromEntries(values);
  }
  async function readmeScreenshot(page: Page, name: string) {
    const path = join(screenshots, name);
    await page.screenshot({ path });
    expect(statSync(path).size, name).toBeGreaterThan(10_000);
    if (UPDATE_README) copyFileSync(path, join(readmeImages, name));
  }

  /** A touchscreen, driven through Chromium's input pipeline (pointer events, taps that click, scrolls that cancel). */
  async function touchscreen(page: Page): Promise<CDPSession> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
    return cdp;
  }
  /** A finger put down at `from`, moved in steps to `to`, and lifted: a tap where the two are the same. */
  async function drag(cdp: CDPSession, from: { x: number; y: number }, to: { x: number; y: number }, steps = 10) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
    for (let step = 1; step <= steps && (from.x !== to.x || from.y !== to.y); step++) {
      const at = { x: from.x + ((to.x - from.x) * step) / steps, y: from.y + ((to.y - from.y) * step) / steps };
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  }
  /** The middle of the shown item's question: where a finger starts a swipe. */
  async function questionMiddle(page: Page, n: number) {
    const box = (await item(page, n).locator('legend').boundingBox())!;
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }
  /** Taps answer `value` of item n (shown), and waits for it to be chosen. */
  async function tapAnswer(page: Page, cdp: CDPSession, n: number, value = valueFor(n)) {
    const box = (await item(page, n)
      .locator('label[part="option"]')
      .nth(value - 1)
      .boundingBox())!;
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await drag(cdp, at, at);
    await poll(() => checkedValue(page, n)).toBe(String(value));
  }
  /** Answers item n (shown, the focus in the component) with its number key, and waits for it to be chosen. */
  async function keyAnswer(page: Page, n: number, value = valueFor(n)) {
    await page.keyboard.press(String(value));
    await poll(() => checkedValue(page, n)).toBe(String(value));
  }
  /** After an answer or a move: item n alone shows, says so, has the focus, and lies clear of the sticky bar. */
  async function expectAt(page: Page, n: number) {
    await poll(() => shown(page)).toEqual(single(n));
    expect(await position(page).textContent()).toBe(`Statement ${n} of ${TOTAL}`);
    const checked = await checkedValue(page, n);
    expect(await focusedRadio(page)).toBe(`${itemId(n)}=${checked ?? 1}`);
    expect(await underBar(page, 'focused item')).toMatchObject({ id: itemId(n), focused: true, clear: true });
  }

  it('chooses its layout by its own width (single under 600 px, the list at desktop width), the layout attribute overrides both, and a change of width keeps the answers and the position', async () => {
    const { page, pageErrors } = await openNew(PHONE);
    // The example page's column leaves the component 328 px of the phone's 360.
    expect(await component(page).evaluate((host) => host.getBoundingClientRect().width)).toBeLessThan(600);
    expect(await shown(page)).toEqual(single(1));
    expect(await position(page).getAttribute('role')).toBe('status');
    expect(await position(page).textContent()).toBe(`Statement 1 of ${TOTAL}`);
    // Nothing comes before the first statement: Back says so, and going back stays.
    expect(await component(page).getByRole('button', { name: 'Back' }).getAttribute('aria-disabled')).toBe('true');
    // (force: Playwright clicks no aria-disabled button, a person may.)
    await component(page).getByRole('button', { name: 'Back' }).click({ force: true });
    await page.keyboard.press('ArrowLeft');
    expect(await shown(page)).toEqual(single(1));

    const cdp = await touchscreen(page);
    for (let n = 1; n <= 3; n++) await tapAnswer(page, cdp, n);
    await poll(() => shown(page)).toEqual(single(4));
    await setLayout(page, 'list');
    await poll(() => shown(page)).toEqual(list);
    await setLayout(page, null);
    await poll(() => shown(page)).toEqual(single(4));

    // Turned to a wide screen: the list, the answers kept, the current item in view; and back: still item 4.
    await page.setViewportSize(DESKTOP);
    await poll(() => shown(page)).toEqual(list);
    for (let n = 1; n <= 3; n++) expect(await checkedValue(page, n)).toBe(String(valueFor(n)));
    await poll(() =>
      item(page, 4).evaluate((fieldset: any) => fieldset.getBoundingClientRect().top < fieldset.ownerDocument.defaultView.innerHeight),
    ).toBe(true);
    await setLayout(page, 'single');
    await poll(() => shown(page)).toEqual(single(4));
    await setLayout(page, 'LIST');
    await poll(() => shown(page)).toEqual(list);
    // Its own width, not the window's: a narrow column on a desktop is laid out one statement at a time.
    await setLayout(page, null);
    await component(page).evaluate((host) => {
      host.style.maxWidth = '480px';
    });
    await poll(() => shown(page)).toEqual(single(4));
    await component(page).evaluate((host) => {
      host.style.maxWidth = '';
    });
    await poll(() => shown(page)).toEqual(list);
    await page.setViewportSize(PHONE);
    await poll(() => shown(page)).toEqual(single(4));
    for (let n = 1; n <= 3; n++) expect(await checkedValue(page, n)).toBe(String(valueFor(n)));
    expect(await progressText(page)).toBe(`3 of ${TOTAL} answered`);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('on a phone, one statement at a time: all 76 answered by keys and by taps, back by swipe and by key, an answer changed after going back, a reload resumes at the first unanswered item, the ending clear of the sticky bar, and 0 serious accessibility violations', async () => {
    const { page, pageErrors, path } = await openNew(PHONE);
    const cdp = await touchscreen(page);
    expect(await seriousViolations(page), 'start').toEqual([]);
    // Every answer and button is a large target (WCAG 2.5.5: 44 by 44 px at least).
    const targets = [
      ...(await item(page, 1).locator('label[part="option"]').all()),
      ...(await component(page).locator('[part="pager-button"]').all()),
    ];
    expect(targets).toHaveLength(7);
    for (const target of targets) {
      const box = (await target.boundingBox())!;
      const name = String(await target.textContent());
      expect(box.width, name).toBeGreaterThanOrEqual(44);
      expect(box.height, name).toBeGreaterThanOrEqual(44);
    }

    // 1..10 by the number keys, from the first answer focused: each answer moves on to the next statement.
    await item(page, 1).locator('input').first().focus();
    for (let n = 1; n <= 10; n++) {
      await keyAnswer(page, n);
      await expectAt(page, n + 1);
    }
    // 11..20 by taps.
    for (let n = 11; n <= 20; n++) {
      await tapAnswer(page, cdp, n);
      await expectAt(page, n + 1);
    }
    // The component from its top: the progress, the statement and its answers, Back and Next.
    await component(page).evaluate((host) => host.scrollIntoView({ block: 'start', behavior: 'instant' }));
    await readmeScreenshot(page, 'phone-single.png');
    expect(await seriousViolations(page), 'middle').toEqual([]);

    // A scroll (a finger moved mostly up), or a short sideways touch, is not a swipe: the statement stays.
    const middle = await questionMiddle(page, 21);
    await drag(cdp, middle, { x: middle.x - 60, y: middle.y - 200 });
    await drag(cdp, middle, { x: middle.x - 40, y: middle.y });
    await poll(() => scrollSettled(page)).toBe(true);
    expect(await shown(page)).toEqual(single(21));
    await page.evaluate('window.scrollTo(0, 0)');
    /** A swipe across the shown statement n: to the right goes back, to the left on (as pages turn). */
    const swipe = async (n: number, direction: 'right' | 'left') => {
      const from = await questionMiddle(page, n);
      await drag(cdp, from, { x: direction === 'right' ? PHONE.width - 20 : 20, y: from.y });
    };
    // Back by a swipe to the right, ArrowLeft and PageUp; on by PageDown, ArrowRight and a swipe to the left.
    await swipe(21, 'right');
    await expectAt(page, 20);
    await page.keyboard.press('ArrowLeft');
    await expectAt(page, 19);
    await page.keyboard.press('PageUp');
    await expectAt(page, 18);
    await page.keyboard.press('PageDown');
    await expectAt(page, 19);
    await page.keyboard.press('ArrowRight');
    await expectAt(page, 20);
    await swipe(20, 'left');
    await expectAt(page, 21);
    await swipe(21, 'right');
    await expectAt(page, 20);
    await page.keyboard.press('ArrowLeft');
    await expectAt(page, 19);
    // Changed there by key, it moves on to the first unanswered, 21.
    const changed19 = (valueFor(19) % 5) + 1;
    await keyAnswer(page, 19, changed19);
    await expectAt(page, 21);
    // Back with the Back button, changed by a tap; the same answer chosen again (no change) moves on as well.
    await component(page).getByRole('button', { name: 'Back' }).click();
    await expectAt(page, 20);
    const changed20 = (valueFor(20) % 5) + 1;
    await tapAnswer(page, cdp, 20, changed20);
    await expectAt(page, 21);
    await page.keyboard.press('ArrowLeft');
    await expectAt(page, 20);
    await page.keyboard.press(String(changed20));
    await expectAt(page, 21);
    // ArrowDown passes through the answers (each chosen, as in the list) without leaving the statement.
    await page.keyboard.press('ArrowDown');
    await poll(() => checkedValue(page, 21)).toBe('2');
    expect(await shown(page)).toEqual(single(21));
    await keyAnswer(page, 21);
    await expectAt(page, 22);

    // 22..30 by taps, then a reload: the answers are kept and it resumes at the first unanswered, 31, focused.
    for (let n = 22; n <= 30; n++) {
      await tapAnswer(page, cdp, n);
      await expectAt(page, n + 1);
    }
    await page.reload();
    await poll(() => progressText(page)).toBe(`30 of ${TOTAL} answered`);
    await expectAt(page, 31);
    for (const [n, value] of [
      [1, valueFor(1)],
      [19, changed19],
      [20, changed20],
      [30, valueFor(30)],
    ] as const) {
      expect(await checkedValue(page, n), `item ${n} after the reload`).toBe(String(value));
    }
    await swipe(31, 'right');
    await expectAt(page, 30);
    await page.keyboard.press('ArrowRight');
    await expectAt(page, 31);

    // 31..75 alternately by key and by tap; the 76th by key ends it.
    for (let n = 31; n < TOTAL; n++) {
      if (n % 2 === 0) await keyAnswer(page, n);
      else await tapAnswer(page, cdp, n);
      await expectAt(page, n + 1);
    }
    expect(await component(page).getByRole('button', { name: 'Next' }).getAttribute('aria-disabled')).toBe('true');
    await keyAnswer(page, TOTAL);
    // The ending: its heading focused and clear of the sticky bar, once the smooth scroll has settled.
    await poll(() => underBar(page, 'ending heading')).toMatchObject({ id: words.en.done, focused: true, clear: true });
    await poll(() => scrollSettled(page)).toBe(true);
    expect(await underBar(page, 'ending heading')).toMatchObject({ focused: true, clear: true });
    expect(await seriousViolations(page), 'end').toEqual([]);
    // After the end, the keys still page back through the answers, read-only.
    await page.keyboard.press('ArrowLeft');
    await poll(() => shown(page)).toEqual(single(TOTAL - 1));
    expect(await checkedValue(page, TOTAL - 1)).toBe(String(valueFor(TOTAL - 1)));
    expect(await item(page, TOTAL - 1).evaluate((fieldset: any) => fieldset.disabled)).toBe(true);
    await stored(path, (body) => body.responses_received === TOTAL);
    const expected = Object.fromEntries(items.map((entry, i) => [entry.id, valueFor(i + 1)]));
    expect(await storedValues(path)).toEqual({ ...expected, [itemId(19)]: changed19, [itemId(20)]: changed20 });
    const all = await events(page);
    expect(all.filter((event) => event.type === 'nature:submitted')).toHaveLength(1);
    expect(all.filter((event) => event.type === 'nature:error')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 240_000);

  it('in the list layout on a phone, the item the focus enters (Tab, Shift+Tab) and the ending heading lie below the sticky progress bar, never under it', async () => {
    const { page, pageErrors } = await openNew(PHONE);
    await setLayout(page, 'list');
    await poll(() => shown(page)).toEqual(list);
    await item(page, 1).locator('input').first().focus();
    for (let n = 1; n <= 14; n++) {
      await page.keyboard.press('Space');
      await poll(() => checkedValue(page, n)).toBe('1');
      await page.keyboard.press('Tab');
      await poll(() => underBar(page, 'focused item')).toMatchObject({ id: itemId(n + 1), focused: true, clear: true });
    }
    // Back up with Shift+Tab: each item above comes in from above the screen, its question below the bar.
    for (let n = 14; n >= 8; n--) {
      await page.keyboard.press('Shift+Tab');
      await poll(() => underBar(page, 'focused item')).toMatchObject({ id: itemId(n), focused: true, clear: true });
    }
    // The rest with the mouse; then the ending, focused and clear of the bar.
    for (let n = 15; n <= TOTAL; n++) {
      await item(page, n).locator('label[part="option"]').nth(0).click();
      await poll(() => checkedValue(page, n)).toBe('1');
    }
    await poll(() => underBar(page, 'ending heading')).toMatchObject({ id: words.en.done, focused: true });
    await poll(() => scrollSettled(page)).toBe(true);
    expect(await underBar(page, 'ending heading')).toMatchObject({ focused: true, clear: true });
    expect(await seriousViolations(page), 'end, list').toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 240_000);

  it('in French, the single layout says where the person is and names its buttons in French', async () => {
    await browser.clearCookies();
    const visitorId = randomUUID();
    const subject = await sk('POST', '/v1/nature/subjects', {
      external_subject_id: `visitor-${visitorId}`,
      consent: { text_version: 'consent-v3', granted_at: new Date().toISOString(), ui_hash: `sha256:${'0'.repeat(64)}` },
    });
    const assessment = await sk('POST', `/v1/nature/subjects/${subject.body.id}/assessments`, { language: 'fr' });
    example.caller.visits.set(visitorId, {
      subjectId: subject.body.id,
      assessmentId: assessment.body.id,
      clientSecret: assessment.body.client_secret,
      resultVisible: false,
    });
    await browser.addCookies([{ name: 'visitor', value: visitorId, url: example.pageUrl }]);
    const page = await browser.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(example.pageUrl);
    await poll(() => progressText(page)).toBe(`0 réponse sur ${TOTAL}`);
    expect(await position(page).textContent()).toBe(`Énoncé 1 sur ${TOTAL}`);
    expect(await component(page).locator('[part="pager-button"]').allTextContents()).toEqual(['Précédent', 'Suivant']);
    await component(page).getByRole('button', { name: 'Suivant' }).click();
    await poll(() => position(page).textContent()).toBe(`Énoncé 2 sur ${TOTAL}`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);
});
