import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Locator, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Example, startExample } from '../../examples/embed/example.js';
import { words } from '../../packages/embed/src/words.js';
import { items } from '../../src/scoring/item-bank.js';
import { seriousViolations } from '../support/axe.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { callServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/** Where the screenshots go, to look at after a run. */
const screenshots = fileURLToPath(new URL('../../test-results/embed-browser/', import.meta.url));
/** The README's screenshots, rewritten only when asked (NATURE_UPDATE_SCREENSHOTS=1): a run must not dirty the tree. */
const readmeImages = fileURLToPath(new URL('../../examples/embed/screenshots/', import.meta.url));
const UPDATE_README = process.env.NATURE_UPDATE_SCREENSHOTS === '1';

const TOTAL = 76;
const DESKTOP = { width: 1280, height: 800 };
/** The id of item n (1-based). */
const itemId = (n: number) => items[n - 1]!.id;
/** The answer the person gives to item n: every value of the scale, in no simple order. */
const valueFor = (n: number) => ((n * 7) % 5) + 1;

/** A PATCH the component sent: its Idempotency-Key and body. */
interface Patch {
  key: string;
  body: { responses: { item_id: string; value: number; answered_at?: unknown; response_time_ms?: unknown }[] };
}

interface NatureEvent {
  type: 'nature:progress' | 'nature:submitted' | 'nature:error';
  detail: Record<string, unknown>;
}

/** expect.poll with room for a busy 2-core machine (its default gives up after 1 s). */
const poll = <T>(probe: () => Promise<T> | T, timeout = 15_000) => expect.poll(probe, { timeout, interval: 50 });

const skipped = chromiumMissing('EMBED BROWSER TESTS');

describe.skipIf(skipped)('the <nature-assessment> component in the example page, in headless Chromium', () => {
  const profile = tempDir('nature-chromium-');
  const clockedProfile = tempDir('nature-chromium-clocked-');
  let example: Example;
  let browser: BrowserContext;
  /**
   * A second browser whose pages run on Playwright's clock, paused: a retry's countdown advances only when a test
   * says, and "no retry comes" is shown by running the clock for minutes, not by waiting.
   */
  let clocked: BrowserContext;
  let scaleLabels: string[];
  let itemTexts: string[];

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    // A short retry schedule: a delivery the receiver missed comes again within seconds.
    example = await startExample({ port: 0, apiEnv: { NATURE_WEBHOOK_RETRY_SCHEDULE: '1s,5s,30s' } });
    browser = await launchChromium(profile.path);
    clocked = await launchChromium(clockedProfile.path);
    const start = Date.now();
    await clocked.clock.install({ time: start });
    await clocked.clock.pauseAt(start + 1_000);
    const bank = (await sk('GET', '/v1/nature/items')).body;
    scaleLabels = bank.scale.labels.map((label: { label: string }) => label.label);
    itemTexts = bank.data.map((item: { text: string }) => item.text);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await clocked?.close();
    await example?.stop();
    profile.cleanup();
    clockedProfile.cleanup();
  });

  /** The API as the caller's server calls it, with its secret key. */
  const sk = (method: string, path: string, body?: unknown) =>
    callServer({ url: example.apiUrl }, example.secretKey.key, method, path, body);

  /** A new subject and its assessment, started as the caller's server would with `start` (the start's body). */
  async function startAssessment(start: Record<string, unknown>) {
    const subject = await sk('POST', '/v1/nature/subjects', {
      external_subject_id: `visitor-${randomUUID()}`,
      consent: { text_version: 'consent-v3', granted_at: new Date().toISOString(), ui_hash: `sha256:${'0'.repeat(64)}` },
    });
    expect(subject.status).toBe(201);
    const assessment = await sk('POST', `/v1/nature/subjects/${subject.body.id}/assessments`, start);
    expect(assessment.status).toBe(201);
    return {
      subjectId: String(subject.body.id),
      assessmentId: String(assessment.body.id),
      clientSecret: String(assessment.body.client_secret),
      resultVisible: start.result_visible_to_subject === true,
      path: `/v1/nature/subjects/${subject.body.id}/assessments/${assessment.body.id}`,
    };
  }

  /**
   * Makes the browser a visitor of the example's server to whom it has handed `visit` (as a caller's server
   * would after starting the assessment), with the component's `language` attribute where given: the page's
   * URL. The example's page is `<html lang="en">`.
   */
  async function visitorOf(visit: Awaited<ReturnType<typeof startAssessment>>, language?: string) {
    const visitorId = randomUUID();
    const { subjectId, assessmentId, clientSecret, resultVisible } = visit;
    example.caller.visits.set(visitorId, {
      subjectId,
      assessmentId,
      clientSecret,
      resultVisible,
      ...(language !== undefined && { language }),
    });
    await browser.clearCookies();
    await browser.addCookies([{ name: 'visitor', value: visitorId, url: example.pageUrl }]);
    return example.pageUrl;
  }

  /**
   * Opens a page and records the script errors it raises, and the requests it makes to the API (the PATCHes with
   * their bodies); `prepare` runs before it is loaded.
   */
  async function open(
    url: string,
    viewport?: { width: number; height: number },
    context = browser,
    prepare?: (page: Page) => Promise<unknown>,
  ): Promise<{ page: Page; pageErrors: string[]; apiRequests: string[]; patches: Patch[] }> {
    const page = await context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    await prepare?.(page);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const apiRequests: string[] = [];
    const patches: Patch[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(`${example.apiUrl}/v1/nature/`)) return;
      apiRequests.push(`${request.method()} ${request.url()}`);
      if (request.method() === 'PATCH') patches.push({ key: request.headers()['idempotency-key']!, body: request.postDataJSON() });
    });
    const response = await page.goto(url);
    expect(response?.status(), url).toBe(200);
    return { page, pageErrors, apiRequests, patches };
  }

  /**
   * Every answer in every PATCH carries its timing (issue 27): `response_time_ms` a whole number in 0..3,600,000,
   * `answered_at` an RFC 3339 time in the server's clock within [from, to] (epoch ms); a batch sent again under
   * its Idempotency-Key has the same body, timing included.
   */
  function expectTimed(patches: Patch[], from: number, to: number) {
    expect(patches.length).toBeGreaterThan(0);
    const bodies = new Map<string, string>();
    for (const { key, body } of patches) {
      expect(JSON.stringify(body), `a resend of ${key}`).toBe(bodies.get(key) ?? JSON.stringify(body));
      bodies.set(key, JSON.stringify(body));
      for (const response of body.responses) {
        const what = JSON.stringify(response);
        expect(Number.isInteger(response.response_time_ms), what).toBe(true);
        expect(response.response_time_ms as number, what).toBeGreaterThanOrEqual(0);
        expect(response.response_time_ms as number, what).toBeLessThanOrEqual(3_600_000);
        expect(response.answered_at, what).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const at = Date.parse(response.answered_at as string);
        expect(at, what).toBeGreaterThanOrEqual(from);
        expect(at, what).toBeLessThanOrEqual(to);
      }
    }
  }

  /**
   * Shows that a page in the clocked browser sends nothing more: its clock runs ten minutes (every retry and
   * countdown would fire), then a request of the page's own is made; the browser reports requests in the order
   * they start, so once that one is seen, any request a timer made would have been seen before it.
   */
  async function expectNoMoreRequests(page: Page, apiRequests: string[]) {
    const before = [...apiRequests];
    await clocked.clock.runFor('10:00');
    const sentinel = page.waitForRequest((request) => request.url().endsWith('/favicon.ico?sentinel'));
    await page.evaluate(`fetch('/favicon.ico?sentinel')`);
    await sentinel;
    expect(apiRequests).toEqual(before);
  }

  /** The item bank's URL, in any language (the component asks for its own). */
  const itemBankUrl = (url: URL) => url.origin === example.apiUrl && url.pathname === '/v1/nature/items';
  /** A screenshot the README shows: kept with the others, and copied to the README's images when asked. */
  async function readmeScreenshot(target: Page | Locator, name: string) {
    const path = join(screenshots, name);
    await target.screenshot({ path });
    expect(statSync(path).size, name).toBeGreaterThan(10_000);
    if (UPDATE_README) copyFileSync(path, join(readmeImages, name));
  }
  const component = (page: Page) => page.locator('nature-assessment');
  const progressText = (page: Page) => component(page).locator('[part="progress"]').innerText();
  const item = (page: Page, n: number) => component(page).locator(`fieldset[data-item-id="${itemId(n)}"]`);
  const radio = (page: Page, n: number, value: number) => item(page, n).locator(`input[type="radio"][value="${value}"]`);
  /** The value of item n's checked radio, or null when none is. */
  const checkedValue = (page: Page, n: number): Promise<string | null> =>
    item(page, n).evaluate((fieldset) => fieldset.querySelector('input[type="radio"]:checked')?.getAttribute('value') ?? null);
  /** The radio that has the focus inside the component, as `item_id=value`. */
  const focusedRadio = (page: Page) =>
    component(page).evaluate((element) => {
      const active = element.shadowRoot?.activeElement;
      return active ? `${active.getAttribute('name')}=${active.getAttribute('value')}` : null;
    });
  /** Whether the focused radio shows a focus ring: it matches :focus-visible and draws an outline or its option a ring. */
  const focusRing = (page: Page) =>
    component(page).evaluate((element) => {
      const active = element.shadowRoot?.activeElement;
      if (!active?.matches(':focus-visible')) return false;
      const style = (target: any) => element.ownerDocument.defaultView!.getComputedStyle(target);
      const outlined = style(active).outlineStyle !== 'none' && parseFloat(style(active).outlineWidth) > 0;
      const label = active.closest('label');
      return outlined || (label !== null && style(label).boxShadow !== 'none');
    });
  /** Whether the page has stopped scrolling (a smooth scroll moves it from one frame to the next). */
  const scrollSettled = async (page: Page) =>
    (await page.evaluate(`new Promise((done) => {
      const before = scrollY;
      requestAnimationFrame(() => requestAnimationFrame(() => done(scrollY === before)));
    })`)) as boolean;
  const events = async (page: Page) => (await page.evaluate('window.natureEvents')) as NatureEvent[];
  const errorEvents = async (page: Page) =>
    (await events(page)).filter((event) => event.type === 'nature:error').map((event) => event.detail);
  const errorText = (page: Page) =>
    component(page)
      .locator('[part="error"]')
      .innerText()
      .catch(() => '');
  /** The ending's heading as the person meets it: its text, whether it has the focus, and whether it is on screen uncovered. */
  const endingHeading = (page: Page) =>
    component(page).evaluate((host: any) => {
      const heading = host.shadowRoot.querySelector('[part="done-heading"]');
      if (heading === null || heading.closest('[hidden]')) return null;
      const box = heading.getBoundingClientRect();
      const onScreen = box.top >= 0 && box.bottom <= host.ownerDocument.defaultView.innerHeight;
      return {
        text: heading.textContent,
        focused: host.ownerDocument.activeElement === host && host.shadowRoot.activeElement === heading,
        onScreen,
        // Not under the sticky progress header: the heading itself is what shows at its centre.
        uncovered: onScreen && heading.contains(host.shadowRoot.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)),
      };
    });
  /**
   * How item n's answers look: the contrast ratios (WCAG) of what shows the choice, from the colours Chromium
   * computed (read back through a canvas, so any CSS colour syntax counts), and every opacity on the way.
   */
  const answerLook = (page: Page, n: number) =>
    item(page, n).evaluate((fieldset: any) => {
      const view = fieldset.ownerDocument.defaultView;
      const context = fieldset.ownerDocument.createElement('canvas').getContext('2d', { willReadFrequently: true });
      const rgba = (css: string) => {
        context.clearRect(0, 0, 1, 1);
        context.fillStyle = css;
        context.fillRect(0, 0, 1, 1);
        return [...context.getImageData(0, 0, 1, 1).data] as number[];
      };
      const style = (element: any) => view.getComputedStyle(element);
      /** The colour behind an element: its own background, else the nearest ancestor's (across the shadow root). */
      const backdrop = (element: any): string => {
        for (let at = element; at; at = at.parentElement ?? at.getRootNode().host) {
          if (rgba(style(at).backgroundColor)[3]! > 0) return style(at).backgroundColor;
        }
        return 'white';
      };
      const luminance = (css: string) => {
        const [r, g, b] = rgba(css).map((v) => {
          const c = v / 255;
          return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const contrast = (a: string, b: string) => {
        const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
        return (light! + 0.05) / (dark! + 0.05);
      };
      const checked = fieldset.querySelector('input:checked');
      const label = checked.closest('label');
      const other = fieldset.querySelector('input:not(:checked)');
      const otherLabel = other.closest('label');
      return {
        disabled: fieldset.disabled,
        opacities: [
          ...new Set([fieldset, fieldset.querySelector('.options'), label, checked, otherLabel, other].map((e) => style(e).opacity)),
        ],
        // The filled radio against its option, the option's border against the card, the label's text.
        dot: contrast(style(checked).backgroundColor, backdrop(label)),
        border: contrast(style(label).borderTopColor, backdrop(fieldset)),
        text: contrast(style(label).color, backdrop(label)),
        // An answer not chosen: its empty radio's ring and its text.
        ring: contrast(style(other).borderTopColor, backdrop(otherLabel)),
        otherText: contrast(style(otherLabel).color, backdrop(otherLabel)),
      };
    });
  /** Item n's answer labels, each as the number of words on each of its lines. */
  const labelLines = (page: Page, n: number) =>
    item(page, n)
      .locator('label[part="option"] span')
      .evaluateAll((spans: any[]) =>
        spans.map((span) => {
          const text = span.firstChild;
          const range = span.ownerDocument.createRange();
          const lines = new Map<number, number>();
          let offset = 0;
          for (const word of text.data.split(' ')) {
            range.setStart(text, offset);
            range.setEnd(text, offset + word.length);
            const top = Math.round(range.getBoundingClientRect().top);
            lines.set(top, (lines.get(top) ?? 0) + 1);
            offset += word.length + 1;
          }
          return [...lines.values()];
        }),
      );
  const assessmentOf = async (page: Page) => {
    const subjectId = await component(page).getAttribute('subject-id');
    const assessmentId = await component(page).getAttribute('assessment-id');
    return { subjectId: subjectId!, assessmentId: assessmentId!, path: `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}` };
  };
  /** What the API has stored for the assessment, polled until `predicate` holds. */
  const stored = (path: string, predicate: (body: Record<string, any>) => boolean, ms = 15_000) =>
    eventually(async () => {
      const { body } = await sk('GET', path);
      return predicate(body) ? body : undefined;
    }, ms);

  /** Answers item n by keyboard from its focused first radio: Space selects, the arrow keys move the choice. */
  async function answerByKeyboard(page: Page, n: number) {
    expect(await focusedRadio(page)).toBe(`${itemId(n)}=1`);
    await page.keyboard.press('Space');
    for (let step = 1; step < valueFor(n); step++) await page.keyboard.press('ArrowRight');
    await poll(() => checkedValue(page, n)).toBe(String(valueFor(n)));
    expect(await focusedRadio(page)).toBe(`${itemId(n)}=${valueFor(n)}`);
  }

  /** Answers item n with the mouse, on the label's text (one of `labels`, the scale's in the assessment's language). */
  async function answerByMouse(page: Page, n: number, labels = scaleLabels) {
    const label: Locator = item(page, n)
      .locator('label[part="option"]')
      .nth(valueFor(n) - 1);
    expect(await label.innerText()).toBe(labels[valueFor(n) - 1]);
    await label.click();
    await poll(() => checkedValue(page, n)).toBe(String(valueFor(n)));
  }

  it('is answered by keyboard and mouse, sends the waiting answers on leaving, resumes when reopened, submits once, ends with the thank-you in view and focused and the answers legible, shows a finished assessment as its ending only, and the webhook brings the profile', async () => {
    const started = Date.now();
    // The issue's desktop: 1280 wide, 800 high.
    const { page, pageErrors, patches } = await open(example.pageUrl, DESKTOP);
    const { subjectId, assessmentId, path } = await assessmentOf(page);

    // The 76 items in id order, each a labelled radio group with the scale's five labels.
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    expect(await component(page).locator('fieldset[part="item"]').count()).toBe(TOTAL);
    expect(await item(page, 1).locator('legend').innerText()).toBe(`1. ${itemTexts[0]}`);
    expect(await item(page, 76).locator('legend').innerText()).toBe(`76. ${itemTexts[75]}`);
    expect(await item(page, 1).getAttribute('role')).toBe('radiogroup');
    expect(await item(page, 1).locator('label[part="option"]').allInnerTexts()).toEqual(scaleLabels);
    expect(await component(page).getByRole('progressbar', { name: 'Assessment progress' }).count()).toBe(1);

    // Items 1..20 by keyboard: Space, arrows, then Tab to the next item.
    await radio(page, 1, 1).focus();
    for (let n = 1; n <= 20; n++) {
      await answerByKeyboard(page, n);
      if (n === 1) {
        expect(await focusRing(page), 'a visible focus ring on the focused option').toBe(true);
        await item(page, 1).screenshot({ path: join(screenshots, 'keyboard-focus.png') });
      }
      if (n === 10) expect((await stored(path, (body) => body.responses_received === 10)).status).toBe('in_progress');
      await page.keyboard.press('Tab');
    }
    // Items 21..37 with the mouse.
    for (let n = 21; n <= 37; n++) await answerByMouse(page, n);
    await poll(() => progressText(page)).toBe(`37 of ${TOTAL} answered`);
    expect(await component(page).locator('progress').getAttribute('value')).toBe('37');
    // Three batches of 10 are in; the last 7 answers wait in the outbox, kept in localStorage.
    await stored(path, (body) => body.responses_received === 30);
    expect(await page.evaluate(`localStorage.getItem('nature-assessment:${assessmentId}')`)).toContain(itemId(37));

    await page.evaluate('window.scrollTo(0, 0)');
    await readmeScreenshot(page, 'desktop.png');

    // Still 30 just before leaving: the 7 newest answers have not been sent yet.
    expect((await sk('GET', path)).body.responses_received).toBe(30);
    // The page may not have handled the third batch's answer yet when the server already holds it.
    await poll(async () => (await events(page)).filter((event) => event.type === 'nature:progress').at(-1)?.detail).toEqual({
      answered: 37,
      saved: 30,
      total: TOTAL,
    });
    const before = await events(page);
    const progressBefore = before.filter((event) => event.type === 'nature:progress').map((event) => event.detail);
    expect(progressBefore.map((detail) => detail.answered)).toEqual(
      [...progressBefore.map((detail) => detail.answered as number)].sort((a, b) => a - b),
    );
    expect(new Set(progressBefore.map((detail) => detail.saved))).toEqual(new Set([0, 10, 20, 30]));
    expect(before.filter((event) => event.type !== 'nature:progress')).toEqual([]);

    // Leave the page in the middle: the 7 waiting answers go as the page goes (pagehide, keepalive), so the
    // server has all 37 before the page is opened again.
    await page.goto('about:blank');
    await stored(path, (body) => body.responses_received === 37);
    // Come back: the component resumes where the person was, and no answer is lost.
    await page.goto(example.pageUrl);
    await poll(() => progressText(page)).toBe(`37 of ${TOTAL} answered`);
    await poll(() => focusedRadio(page)).toBe(`${itemId(38)}=1`);
    const visible = await item(page, 38).evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= element.ownerDocument.defaultView!.innerHeight;
    });
    expect(visible, 'the first unanswered item is scrolled into view').toBe(true);
    for (let n = 1; n <= 37; n++) expect(await checkedValue(page, n), `item ${n} after the reload`).toBe(String(valueFor(n)));
    expect(await checkedValue(page, 38)).toBeNull();
    expect((await sk('GET', path)).body.unanswered_item_ids[0]).toBe(itemId(38));

    // Items 38..57 by keyboard from where the focus was put, 58..76 with the mouse.
    for (let n = 38; n <= 57; n++) {
      await answerByKeyboard(page, n);
      await page.keyboard.press('Tab');
    }
    for (let n = 58; n <= TOTAL; n++) await answerByMouse(page, n);

    // The ending: its heading has the focus (the radio that had it is now disabled) and is scrolled into view,
    // clear of the sticky progress header (smoothly, unless the person prefers reduced motion: polled).
    await poll(() => endingHeading(page)).toEqual({ text: words.en.done, focused: true, onScreen: true, uncovered: true });
    expect(
      await component(page)
        .locator('[part="done-heading"]')
        .evaluate((heading) => [heading.tagName, heading.getAttribute('tabindex')]),
    ).toEqual(['H2', '-1']);
    expect(await component(page).locator('[part="done"]').getAttribute('aria-labelledby')).toBe('ending-heading');
    await poll(() => progressText(page)).toBe(`76 of ${TOTAL} answered`);
    expect(await radio(page, 1, 1).isDisabled()).toBe(true);
    expect(await component(page).locator('[part="error"]').isHidden()).toBe(true);
    await poll(() => scrollSettled(page)).toBe(true);
    await readmeScreenshot(page, 'ending.png');
    // The person's answers stay legible, read-only: nothing fades, the chosen answer shows at AA contrast (3:1 for
    // what marks it, 4.5:1 for text), and so does every answer not chosen.
    for (const n of [1, 38, 74, 76]) {
      expect(await checkedValue(page, n), `item ${n}`).toBe(String(valueFor(n)));
      const look = await answerLook(page, n);
      expect(look.disabled, `item ${n}`).toBe(true);
      expect(look.opacities, `item ${n}: no fading`).toEqual(['1']);
      for (const [what, ratio, least] of [
        ['the filled radio', look.dot, 3],
        ["the chosen option's border", look.border, 3],
        ["the chosen answer's text", look.text, 4.5],
        ['the ring of a radio not chosen', look.ring, 3],
        ["an answer's text not chosen", look.otherText, 4.5],
      ] as const) {
        expect(ratio, `item ${n}: ${what}`).toBeGreaterThanOrEqual(least);
      }
    }
    expect((await page.locator('#event-lines li').allInnerTexts()).filter((line) => line.startsWith('Submitted'))).toEqual([
      expect.stringMatching(/^Submitted \((scoring|completed)\)\.$/),
    ]);

    // The DOM events after the reload: progress up to 76 saved, one submitted, no error.
    await poll(async () => (await events(page)).filter((event) => event.type === 'nature:progress').at(-1)?.detail).toEqual({
      answered: 76,
      saved: 76,
      total: TOTAL,
    });
    const after = await events(page);
    const submitted = after.filter((event) => event.type === 'nature:submitted');
    expect(submitted).toHaveLength(1);
    expect(submitted[0]!.detail).toEqual({ assessment_id: assessmentId, status: expect.stringMatching(/^(scoring|completed)$/) });
    // No error: not even though the reopened page resent the batch sent on leaving (its answer never reached the
    // page that went), with the same key: the API replays it (or, still running, 409s it, waited out quietly).
    expect(after.filter((event) => event.type === 'nature:error')).toEqual([]);
    const answeredAfter = after.filter((event) => event.type === 'nature:progress').map((event) => event.detail.answered as number);
    expect(Math.min(...answeredAfter)).toBeGreaterThanOrEqual(37);

    // The caller's receiver verified the webhook and fetched the profile; its page says so.
    await poll(() => page.locator('#profile-line').innerText(), 30_000).toBe('Your profile is ready: Example Careers has received it.');
    await page.locator('#profile-line').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(screenshots, 'completed.png') });
    const latest = await sk('GET', `/v1/nature/subjects/${subjectId}/profile`);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ object: 'profile', subject_id: subjectId, assessment_id: assessmentId, status: 'current' });
    // Words for the person: no id, and nothing ranked.
    expect(await page.locator('body').innerText()).not.toMatch(/prf_|strongest|rank/i);
    const deliveries = example.caller.deliveries.filter((delivery) => delivery.data.assessment_id === assessmentId);
    expect(deliveries).toEqual([
      expect.objectContaining({
        type: 'nature.assessment.completed',
        data: expect.objectContaining({ profile_id: latest.body.id, subject_id: subjectId }),
      }),
    ]);
    expect(example.caller.completions.get(assessmentId)?.profile).toMatchObject({ id: latest.body.id });
    const assessment = await sk('GET', path);
    expect(assessment.body).toMatchObject({ status: 'completed', responses_received: 76, profile_id: latest.body.id });

    // Every answer the person gave is the one stored: the last value per item in the subject's history.
    const audit = await sk('GET', `/v1/nature/subjects/${subjectId}/audit?limit=100`);
    const storedValues = new Map<string, number>();
    for (const entry of [...audit.body.data].sort(
      (a, b) => String(a.occurred_at).localeCompare(String(b.occurred_at)) || String(a.id).localeCompare(String(b.id)),
    )) {
      if (entry.type !== 'responses.submitted') continue;
      for (const response of entry.data.responses as { item_id: string; value: number }[])
        storedValues.set(response.item_id, response.value);
    }
    expect(Object.fromEntries(storedValues)).toEqual(Object.fromEntries(items.map((item, i) => [item.id, valueFor(i + 1)])));
    // Each answer went with its timing; answered_at in the server's clock (this machine's: the Date header's whole
    // second, plus half, may put it up to half a second ahead) within the test's window.
    expectTimed(patches, started - 1_000, Date.now() + 1_000);
    expect(new Set(patches.flatMap((patch) => patch.body.responses.map((response) => response.item_id))).size).toBeGreaterThanOrEqual(
      TOTAL - 7,
    );
    expect(pageErrors).toEqual([]);
    await page.close();

    // Reopened, the page shows the ending only: no instructions, no "No answer yet", no items, no progress, no
    // error. Twice: on this browser (which stored that the answers are in), then as on another browser (nothing
    // stored: the API refuses the secret of the closed assessment with a 401 carrying its assessment_status).
    const again = await open(example.pageUrl, DESKTOP);
    for (const storage of ['kept', 'cleared']) {
      if (storage === 'cleared') {
        await again.page.evaluate(`localStorage.removeItem(${JSON.stringify(`nature-assessment:${assessmentId}`)})`);
        await again.page.reload();
      }
      expect(await component(again.page).getAttribute('assessment-id')).toBe(assessmentId);
      await poll(() => endingHeading(again.page)).toMatchObject({ text: words.en.done, onScreen: true });
      // Nothing was answered on this page: the ending does not take the focus from the page that just loaded.
      expect((await endingHeading(again.page))?.focused, storage).toBe(false);
      const shown = await again.page.locator('body').innerText();
      expect(shown, storage).not.toContain('No answer yet');
      expect(shown, storage).not.toContain('Answer each statement');
      expect(shown, storage).not.toContain('Loading the questions');
      expect(await component(again.page).locator('fieldset').count(), storage).toBe(0);
      expect(await component(again.page).locator('.progress').isHidden(), storage).toBe(true);
      expect(await component(again.page).locator('[part="error"]').isHidden(), storage).toBe(true);
      await poll(() => again.page.locator('#profile-line').innerText(), 30_000).toBe(
        'Your profile is ready: Example Careers has received it.',
      );
      // Not allowed by the caller: no result, however long the page stays.
      expect(await component(again.page).locator('.result').count(), storage).toBe(0);
      const reopenedEvents = await events(again.page);
      expect(
        reopenedEvents.filter((event) => event.type !== 'nature:progress'),
        storage,
      ).toEqual([]);
    }
    expect(again.pageErrors).toEqual([]);
    await again.page.close();
  }, 180_000);

  it("on a browser whose clock is an hour slow: each answer's answered_at is in the server's clock, its response_time_ms the time since the item before it was answered", async () => {
    await clocked.clearCookies(); // a visitor of its own
    // The clocked browser's clock is paused: its time moves only by runFor below (and so does performance.now()).
    await clocked.clock.setSystemTime(Date.now() - 3_600_000);
    const started = Date.now();
    // Tall enough for the first ten items to be in view from the start.
    const { page, pageErrors, patches } = await open(example.pageUrl, { width: 1280, height: 2_400 }, clocked);
    const { path } = await assessmentOf(page);
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    expect((await page.evaluate('Date.now()')) as number).toBeLessThan(started - 3_500_000);
    for (let n = 1; n <= 10; n++) {
      await clocked.clock.runFor(n === 1 ? 3_000 : 1_000 + 100 * n);
      await answerByMouse(page, n);
    }
    // The batch of ten goes once the answers have settled (600 ms).
    await clocked.clock.runFor(1_000);
    await stored(path, (body) => body.responses_received === 10);
    // The page's clock ran 3 + 9 × 1.x s ahead of the real one's few seconds here: the window's end allows for it.
    const ran = 3_000 + Array.from({ length: 9 }, (_, i) => 1_000 + 100 * (i + 2)).reduce((a, b) => a + b, 0);
    expectTimed(patches, started - 1_000, Date.now() + ran + 1_000);
    const sent = patches.flatMap((patch) => patch.body.responses);
    expect(sent.map((response) => response.item_id)).toEqual(Array.from({ length: 10 }, (_, i) => itemId(i + 1)));
    // Item 1 from when it was shown, each next one from the answer before it.
    expect(sent.map((response) => response.response_time_ms)).toEqual(
      Array.from({ length: 10 }, (_, i) => (i === 0 ? 3_000 : 1_000 + 100 * (i + 1))),
    );
    const times = sent.map((response) => Date.parse(response.answered_at as string));
    expect(times.slice(1).map((time, i) => time - times[i]!)).toEqual(Array.from({ length: 9 }, (_, i) => 1_000 + 100 * (i + 2)));
    expect(pageErrors).toEqual([]);
    await page.close();
    await clocked.clock.setSystemTime(Date.now());
  }, 120_000);

  it('the receiver refuses a delivery whose signature does not verify (400) and records nothing', async () => {
    const count = example.caller.deliveries.length;
    const rejected = example.caller.rejectedDeliveries;
    const forged = await fetch(new URL('/webhooks', example.otherOriginUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,bm90IGEgcmVhbCBzaWduYXR1cmU=',
      },
      body: JSON.stringify({ type: 'nature.assessment.completed', data: { profile_id: 'prf_forged', assessment_id: 'asm_forged' } }),
    });
    expect(forged.status).toBe(400);
    expect(example.caller.deliveries).toHaveLength(count);
    expect(example.caller.rejectedDeliveries).toBe(rejected + 1);
  });

  it('fits a 360-px-wide phone screen, one statement at a time (the default there) and as a list: no horizontal scroll, the options within the screen', async () => {
    await browser.clearCookies(); // a new visitor, with a new assessment
    const { page, pageErrors } = await open(example.pageUrl, { width: 360, height: 780 });
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    // One statement at a time: each answer brings the next (embed-single-browser.test.ts tests the rest).
    for (let n = 1; n <= 2; n++) await answerByMouse(page, n);
    await poll(() => progressText(page)).toBe(`2 of ${TOTAL} answered`);
    const fits = async (n: number) => {
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
      for (const label of await item(page, n).locator('label[part="option"]').all()) {
        const box = await label.boundingBox();
        expect(box, `item ${n}: an option lies outside the screen`).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(360);
      }
    };
    await poll(() => item(page, 3).isVisible()).toBe(true);
    expect(await item(page, 1).isVisible()).toBe(false);
    await fits(3);
    // As a list, the answers stacked under each statement.
    await component(page).evaluate((host) => host.setAttribute('layout', 'list'));
    await poll(() => item(page, 1).isVisible()).toBe(true);
    for (const n of [1, 3, 76]) await fits(n);
    // Stacked, each answer's label has the row to itself: one line.
    expect(await labelLines(page, 1)).toEqual(scaleLabels.map((label) => [label.split(' ').length]));
    await page.evaluate('window.scrollTo(0, 0)');
    await readmeScreenshot(page, 'phone.png');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('keeps each answer label on one line at desktop width, and breaks a label only into balanced lines where the row is narrower', async () => {
    await browser.clearCookies(); // a new visitor: the first one has finished
    const { page, pageErrors } = await open(example.pageUrl, DESKTOP);
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    // "Not at all like me" and the others: one line each (every word on the same line).
    for (const n of [1, 76]) expect(await labelLines(page, n)).toEqual(scaleLabels.map((label) => [label.split(' ').length]));
    // A narrower desktop window (800 px: the page's column is narrower than the five labels side by side): a label
    // may take two lines, but its last line is never one word left alone ("Not at all / like me", not "Not at all like / me").
    await page.setViewportSize({ width: 800, height: 800 });
    const narrow = await labelLines(page, 1);
    expect(
      narrow.some((lines) => lines.length > 1),
      'the row is narrow enough to wrap',
    ).toBe(true);
    for (const [i, lines] of narrow.entries()) {
      expect(lines.length, scaleLabels[i]).toBeLessThanOrEqual(2);
      expect(lines.at(-1), `${scaleLabels[i]}: a word alone on its last line`).toBeGreaterThanOrEqual(2);
    }
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);

  /** The result in the ending as the person meets it: its heading, whether it has the focus, and the chart's text alternatives. */
  const resultShown = (page: Page) =>
    component(page).evaluate((host: any) => {
      const heading = host.shadowRoot.querySelector('[part="result-heading"]');
      const chart = host.shadowRoot.querySelector('.result svg');
      if (heading === null || chart === null) return null;
      const box = heading.getBoundingClientRect();
      return {
        heading: heading.textContent,
        focused: host.ownerDocument.activeElement === host && host.shadowRoot.activeElement === heading,
        onScreen: box.top >= 0 && box.bottom <= host.ownerDocument.defaultView.innerHeight,
        titles: [...chart.querySelectorAll('title')].map((title: any) => title.textContent),
        text: chart.textContent,
        fits: chart.getBoundingClientRect().width <= host.getBoundingClientRect().width,
      };
    });

  it('with result_visible_to_subject: answered by keyboard alone, after the 76th answer the person sees their result inline, its heading in view and focused, the chart read by its text alternatives, nothing ranked, no ids; 0 serious accessibility violations at the start, the middle, the end and the result', async () => {
    // A new visitor, whose assessment this example's server starts letting the person see the result.
    await browser.clearCookies();
    const { page, pageErrors } = await open(`${example.pageUrl}?result=visible`, DESKTOP);
    const { path } = await assessmentOf(page);
    expect((await sk('GET', path)).body.result_visible_to_subject).toBe(true);
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    expect(await seriousViolations(page), 'start').toEqual([]);
    // By keyboard alone: Space and the arrows in each item, Tab to the next.
    await radio(page, 1, 1).focus();
    for (let n = 1; n < TOTAL; n++) {
      await answerByKeyboard(page, n);
      if (n === 38) expect(await seriousViolations(page), 'middle').toEqual([]);
      await page.keyboard.press('Tab');
    }
    // The last answer completes the assessment at once: Space on the focused first option.
    expect(await focusedRadio(page)).toBe(`${itemId(TOTAL)}=1`);
    await page.keyboard.press('Space');
    await poll(() => endingHeading(page)).toMatchObject({ text: words.en.done });
    expect(await seriousViolations(page), 'end').toEqual([]);

    await poll(() => resultShown(page), 30_000).toMatchObject({ heading: words.en.resultHeading, focused: true, fits: true });
    await poll(async () => (await resultShown(page))?.onScreen).toBe(true);
    const shown = (await resultShown(page))!;
    // A text alternative per bar: the 9 Natures and 10 Intelligences, alphabetical within each, each with its score.
    const bars = shown.titles.slice(1);
    expect(bars).toHaveLength(19);
    expect(bars[0]).toMatch(/^Administrative: \d\.\d\d on a scale from 0 to 1, in the [a-z ]+ band\.$/);
    expect(bars.slice(0, 9).map((title: string) => title.split(':')[0])).toEqual(
      [...bars.slice(0, 9).map((title: string) => title.split(':')[0])].sort(),
    );
    expect(`${shown.text} ${await page.locator('body').innerText()}`).not.toMatch(/prf_|sub_|asm_|strongest|weakest|rank|#1|\btop\b/i);
    expect(await seriousViolations(page), 'result').toEqual([]);
    await readmeScreenshot(component(page).locator('.result'), 'result.png');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 180_000);

  /** The language marked on the component's content: the shadow root's children are its style and the element that carries `lang`. */
  const contentLanguage = (page: Page) =>
    component(page).evaluate((host) => [...host.shadowRoot!.children].map((child) => child.getAttribute('lang')).filter(Boolean));

  it("in French: a French assessment in an English page (no language attribute) speaks the assessment's language, from the loading line and the items to the ending and the result; 0 serious accessibility violations at the start, the end and the result", async () => {
    const bank = (await sk('GET', '/v1/nature/items?language=fr')).body;
    expect(bank.language).toBe('fr');
    const frenchLabels: string[] = bank.scale.labels.map((label: { label: string }) => label.label);
    const frenchTexts: string[] = bank.data.map((item: { text: string }) => item.text);
    expect(frenchTexts[0]).not.toBe(itemTexts[0]);
    const visit = await startAssessment({ language: 'fr', result_visible_to_subject: true });
    expect((await sk('GET', visit.path)).body.language).toBe('fr');
    const url = await visitorOf(visit);

    // The item bank is held until the loading line is read: it is asked for, in French, once the assessment has said its language.
    const bankRequests: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      bankRequests.push(route.request().url());
      await released;
      await route.continue();
    };
    const { page, pageErrors } = await open(url, DESKTOP, browser, (opened) => opened.route(itemBankUrl, hold));
    expect(await page.evaluate('document.documentElement.lang')).toBe('en');
    expect(await component(page).getAttribute('language')).toBeNull();
    await poll(() => component(page).locator('.loading').innerText()).toBe('Chargement des questions…');
    await poll(() => bankRequests).toEqual([`${example.apiUrl}/v1/nature/items?language=fr`]);
    release();

    await poll(() => progressText(page)).toBe(`0 réponse sur ${TOTAL}`);
    expect(await contentLanguage(page)).toEqual(['fr']);
    expect(await item(page, 1).locator('legend').innerText()).toBe(`1. ${frenchTexts[0]}`);
    expect(await item(page, 76).locator('legend').innerText()).toBe(`76. ${frenchTexts[75]}`);
    expect(await item(page, 1).locator('label[part="option"]').allInnerTexts()).toEqual(frenchLabels);
    expect(await component(page).getByRole('progressbar', { name: "Progression de l'évaluation" }).count()).toBe(1);
    expect(await seriousViolations(page), 'start').toEqual([]);

    // 1..37 by keyboard, then the README's screenshots at desktop and phone width; 38..76 with the mouse.
    await radio(page, 1, 1).focus();
    for (let n = 1; n <= 37; n++) {
      await answerByKeyboard(page, n);
      await page.keyboard.press('Tab');
    }
    await poll(() => progressText(page)).toBe(`37 réponses sur ${TOTAL}`);
    await page.evaluate('window.scrollTo(0, 0)');
    await readmeScreenshot(page, 'desktop-fr.png');
    await page.setViewportSize({ width: 360, height: 780 });
    await page.evaluate('window.scrollTo(0, 0)');
    await readmeScreenshot(page, 'phone-fr.png');
    await page.setViewportSize(DESKTOP);
    for (let n = 38; n <= TOTAL; n++) await answerByMouse(page, n, frenchLabels);

    // The focus moves on to the result as soon as it is shown, so only the thank-you's words are awaited here (as in English).
    await poll(() => endingHeading(page)).toMatchObject({ text: 'Merci\u00a0: vos 76 réponses sont enregistrées.' });
    await poll(() => progressText(page)).toBe(`76 réponses sur ${TOTAL}`);
    expect(await seriousViolations(page), 'end').toEqual([]);
    await poll(() => resultShown(page), 30_000).toMatchObject({ heading: 'Votre résultat', focused: true, fits: true });
    const shown = (await resultShown(page))!;
    // The chart the API drew in the profile's language: its text alternatives are French.
    const profile = (await sk('GET', `/v1/nature/subjects/${visit.subjectId}/profile`)).body;
    expect(profile.language).toBe('fr');
    expect(shown.titles[0]).toBe('Profil Nature');
    const bars = shown.titles.slice(1);
    expect(bars).toHaveLength(19);
    expect(bars[0]).toMatch(/^Administrative\u00a0: \d,\d\d sur une échelle de 0 à 1, niveau [a-zéô ]+\.$/);
    expect(bars.map((title: string) => title.split('\u00a0:')[0])).toContain('Aventureuse');
    expect(shown.text).not.toMatch(/on a scale from|\bband\b/);
    expect(await seriousViolations(page), 'result').toEqual([]);
    await readmeScreenshot(component(page).locator('.result'), 'result-fr.png');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 180_000);

  it('the language attribute wins over the assessment\'s: language="fr" on an English assessment shows the items in French; taken away, the component starts over in English', async () => {
    const bank = (await sk('GET', '/v1/nature/items?language=fr')).body;
    const visit = await startAssessment({ language: 'en' });
    const { page, pageErrors, apiRequests } = await open(await visitorOf(visit, 'fr'), DESKTOP);
    await poll(() => progressText(page)).toBe(`0 réponse sur ${TOTAL}`);
    expect(await contentLanguage(page)).toEqual(['fr']);
    expect(await item(page, 1).locator('legend').innerText()).toBe(`1. ${bank.data[0].text}`);
    expect(await item(page, 1).locator('label[part="option"]').allInnerTexts()).toEqual(
      bank.scale.labels.map((label: { label: string }) => label.label),
    );
    expect(apiRequests.filter((request) => request.includes('/v1/nature/items'))).toEqual([
      `GET ${example.apiUrl}/v1/nature/items?language=fr`,
    ]);

    await component(page).evaluate((element) => element.removeAttribute('language'));
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    expect(await contentLanguage(page)).toEqual(['en']);
    expect(await item(page, 1).locator('legend').innerText()).toBe(`1. ${itemTexts[0]}`);
    expect(await item(page, 1).locator('label[part="option"]').allInnerTexts()).toEqual(scaleLabels);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('with result_visible_to_subject but no chart to be had: after a bounded number of tries, says the result will come another way', async () => {
    await browser.clearCookies();
    const { page, pageErrors } = await open(`${example.pageUrl}?result=visible`, DESKTOP);
    // Every chart request fails as a gateway would, asking for no wait: the component's tries run back to back.
    const chartRequests: string[] = [];
    await page.route('**/chart.svg*', (route) => {
      chartRequests.push(route.request().url());
      return route.fulfill({
        status: 503,
        headers: { 'content-type': 'application/problem+json', 'retry-after': '0', 'access-control-allow-origin': '*' },
        body: JSON.stringify({
          type: 'about:blank',
          title: 'Service unavailable',
          status: 503,
          detail: 'Down.',
          code: 'service_unavailable',
        }),
      });
    });
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    for (let n = 1; n <= TOTAL; n++) await answerByMouse(page, n);
    await poll(() => component(page).locator('.result-elsewhere').innerText(), 30_000).toBe(
      'Your result is not ready yet. It will reach you another way.',
    );
    expect(chartRequests).toHaveLength(6);
    expect(await component(page).locator('.result').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 180_000);

  it('on an origin the publishable key does not allow: stops at once and says what the site owner must fix; nature:error insufficient_scope, not retrying; nothing stored', async () => {
    const { page, apiRequests } = await open(example.otherOriginUrl, DESKTOP, clocked);
    const { path } = await assessmentOf(page);
    const origin = new URL(example.otherOriginUrl).origin;
    await poll(() => errorText(page)).toContain(`its publishable key may not be used on ${origin}.`);
    expect(await errorText(page)).toContain('The site owner must give the page a publishable key that allows this origin');
    expect(await errorText(page)).toMatch(/Error code insufficient_scope, request req_\w+\./);
    expect(await errorText(page)).not.toContain('Retrying');
    expect(await component(page).locator('[part="error"] [role="alert"]').count()).toBe(1);
    expect(await component(page).locator('.loading').isHidden()).toBe(true);
    const errors = await errorEvents(page);
    expect(errors.length).toBeGreaterThan(0);
    for (const detail of errors) expect(detail).toMatchObject({ code: 'insufficient_scope', status: 403, retrying: false });
    // The API's own words stay in the event, for the site's developers.
    expect(errors[0]!.detail).toBe(
      `This publishable key may not be used from ${origin}; its allowed origins are ${new URL(example.pageUrl).origin}.`,
    );
    await page.screenshot({ path: join(screenshots, 'origin-refused.png') });
    await expectNoMoreRequests(page, apiRequests);
    expect((await events(page)).filter((event) => event.type === 'nature:submitted')).toEqual([]);
    expect((await sk('GET', path)).body).toMatchObject({ status: 'created', responses_received: 0 });
    await page.close();
  }, 120_000);

  it("after a passing failure (a gateway's 503 with Retry-After): says so with a countdown on the retry's own clock, then loads", async () => {
    await clocked.clearCookies(); // a visitor of its own
    const page = await clocked.newPage();
    await page.setViewportSize(DESKTOP);
    let refused = 0;
    // The item bank's first request meets a 503 from something in front of the API (plain text, Retry-After 3, no
    // request-id); it keeps the API's CORS headers, so the page may read it, as a real gateway's would need.
    await page.route(itemBankUrl, async (route) => {
      if (route.request().method() !== 'GET' || refused > 0) return route.fallback();
      refused += 1;
      const { 'request-id': _, ...cors } = (await route.fetch()).headers();
      await route.fulfill({
        status: 503,
        headers: { ...cors, 'content-type': 'text/plain', 'retry-after': '3' },
        body: 'Service Unavailable',
      });
    });
    expect((await page.goto(example.pageUrl))?.status()).toBe(200);
    const retry = component(page).locator('[part="error"] .retry');
    await poll(() => errorText(page)).toContain('The Nature Profile API could not answer just now.');
    expect(await retry.innerText()).toBe('Retrying in 3 s…');
    await page.screenshot({ path: join(screenshots, 'retrying.png') });
    expect(await component(page).locator('.loading').isVisible()).toBe(true);
    expect(await errorEvents(page)).toEqual([
      {
        code: 'http_503',
        status: 503,
        title: 'HTTP 503',
        detail: 'The Nature Profile API answered 503.',
        request_id: null,
        retrying: true,
      },
    ]);
    // The paused clock moves only here: each second shows, then the retry goes and the questions load.
    for (const left of [2, 1]) {
      await clocked.clock.runFor(1_000);
      await poll(() => retry.innerText()).toBe(`Retrying in ${left} s…`);
    }
    await clocked.clock.runFor(1_000);
    await poll(() => progressText(page)).toBe(`0 of ${TOTAL} answered`);
    expect(await component(page).locator('[part="error"]').isHidden()).toBe(true);
    expect(await component(page).locator('fieldset[part="item"]').count()).toBe(TOTAL);
    expect(refused).toBe(1);
    expect(await errorEvents(page)).toHaveLength(1);
    await page.close();
  }, 120_000);

  // Last: it revokes the example's publishable key.
  it('with a revoked publishable key: stops at once and says what the site owner must fix; nature:error unauthenticated, not retrying', async () => {
    await example.cli(['keys', 'revoke', example.publishableKey.id]);
    await clocked.clearCookies();
    const { page, apiRequests } = await open(example.pageUrl, DESKTOP, clocked);
    const { path } = await assessmentOf(page);
    await poll(() => errorText(page)).toContain("The Nature Profile API refused this page's publishable key or client secret.");
    expect(await errorText(page)).toContain(
      'The site owner must give the page a current publishable key (a revoked or rotated key no longer works)',
    );
    expect(await errorText(page)).toMatch(/Error code unauthenticated, request req_\w+\./);
    expect(await errorText(page)).not.toContain('Retrying');
    expect(await component(page).locator('.loading').isHidden()).toBe(true);
    const errors = await errorEvents(page);
    expect(errors.length).toBeGreaterThan(0);
    for (const detail of errors) expect(detail).toMatchObject({ code: 'unauthenticated', status: 401, retrying: false });
    expect(errors[0]!.detail).toBe('This API key was revoked and no longer works.');
    await expectNoMoreRequests(page, apiRequests);
    expect((await sk('GET', path)).body).toMatchObject({ status: 'created', responses_received: 0 });
    await page.close();
  }, 120_000);
});
