// The component's DOM: a progress header, an error area, the 76 items as native radio groups, and the
// ending. Native radios give keyboard use for free (Tab between items, arrows within one). In the single layout
// only the current item shows, with its position, Back and Next, swipes and keys to move between items.

import { type ItemBank, TOTAL_ITEMS } from './api.js';
import type { Language } from './language.js';
import type { Layout } from './layout.js';
import { styles } from './styles.js';
import { type Words, words } from './words.js';

/** What the view needs to know about an item's answer. */
/** How far (CSS px) a touch must travel sideways, and twice as far as up or down, to be a swipe and not a scroll. */
const SWIPE_DISTANCE = 56;

export interface AnswerLookup {
  isAnswered(itemId: string): boolean;
  valueOf(itemId: string): number | undefined;
}

export class View {
  /** Everything but the style: carries `lang`, so a screen reader reads the element in its language. */
  private readonly frame: HTMLElement;
  private readonly progressHeader: HTMLElement;
  private readonly progressText: HTMLElement;
  private readonly progressBar: HTMLProgressElement;
  private readonly error: HTMLElement;
  private readonly errorText: HTMLElement;
  private readonly retry: HTMLElement;
  private readonly reference: HTMLElement;
  private readonly loading: HTMLElement;
  private readonly list: HTMLElement;
  private readonly ending: HTMLElement;
  private readonly endingHeading: HTMLElement;
  private readonly fieldsets = new Map<string, HTMLFieldSetElement>();
  private readonly root: ShadowRoot;
  /** The sticky progress and error header: what scrolls into view must land below it. */
  private readonly top: HTMLElement;
  /** Single layout: "Statement N of 76", a polite live region. */
  private readonly position: HTMLElement;
  private readonly pager: HTMLElement;
  private readonly back: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  /** Reports which items are on screen, while the items are (renderItems to stopWatching). */
  private watcher: IntersectionObserver | null = null;
  /** Keeps --_top, the sticky header's height, for scroll-margin-top (stopWatching ends it). */
  private readonly topWatcher: ResizeObserver | null;
  private say: Words;
  private layout: Layout;
  /** The item ids in order, and the index of the current one: shown in the single layout, the focused one in the list. */
  private order: string[] = [];
  private current = 0;
  private answers: AnswerLookup | null = null;
  /** Set by ArrowUp/ArrowDown in the single layout: a choice made passing through the answers does not move on. */
  private choosingByArrow = false;
  /** A touch under way on the single item (pointer id and start), and the pointer of the last swipe. */
  private touch: { id: number; x: number; y: number } | null = null;
  private swipedPointer: number | null = null;

  constructor(root: ShadowRoot, language: Language, layout: Layout) {
    this.root = root;
    this.say = words[language];
    const style = el('style');
    style.textContent = styles;
    this.progressText = el('div', { part: 'progress', role: 'status', 'aria-live': 'polite' });
    this.progressBar = el('progress', { part: 'progress-bar', max: String(TOTAL_ITEMS), value: '0', 'aria-label': this.say.progressLabel });
    this.progressHeader = el('div', { class: 'progress', hidden: '' }, this.progressText, this.progressBar);
    // Only the failure is an alert; the countdown beside it changes every second and is read on demand.
    this.errorText = el('p', { role: 'alert' });
    this.retry = el('p', { class: 'retry', hidden: '' });
    this.reference = el('p', { class: 'reference', hidden: '' });
    this.error = el('div', { part: 'error', class: 'message', hidden: '' }, this.errorText, this.retry, this.reference);
    this.loading = el('p', { class: 'loading', hidden: '' }, this.say.loading);
    this.list = el('div', { class: 'items' });
    // The ending is a section of its own, its heading first: what follows the thank-you (the result, where the
    // caller shows it) belongs in it, after the heading.
    this.endingHeading = el('h2', { part: 'done-heading', id: 'ending-heading', tabindex: '-1' }, this.say.done);
    this.ending = el('section', { part: 'done', class: 'ending', 'aria-labelledby': 'ending-heading', hidden: '' }, this.endingHeading);
    // Progress and failures stay in sight (sticky) wherever the person has scrolled to: a countdown must be seen.
    this.top = el('div', { class: 'top' }, this.progressHeader, this.error);
    this.layout = layout;
    this.position = el('p', { part: 'position', class: 'position', role: 'status', 'aria-live': 'polite', hidden: '' });
    this.back = el('button', { type: 'button', part: 'pager-button' }, this.say.back);
    this.next = el('button', { type: 'button', part: 'pager-button' }, this.say.next);
    this.pager = el('div', { part: 'pager', class: 'pager', hidden: '' }, this.back, this.next);
    this.frame = el(
      'div',
      { lang: language, 'data-layout': layout },
      this.top,
      this.loading,
      this.position,
      this.list,
      this.pager,
      this.ending,
    );
    root.replaceChildren(style, this.frame);
    this.topWatcher = typeof ResizeObserver === 'function' ? new ResizeObserver(() => this.measureTop()) : null;
    this.topWatcher?.observe(this.top);
    this.listen();
  }

  /** The single layout's controls, and the list's focus kept clear of the sticky header. */
  private listen(): void {
    this.back.addEventListener('click', () => this.go(this.current - 1));
    this.next.addEventListener('click', () => this.go(this.current + 1));
    this.frame.addEventListener('keydown', (event) => this.onKey(event));
    this.list.addEventListener('pointerdown', (event) => {
      this.swipedPointer = null;
      // Mouse drags select text; a second finger is a pinch.
      this.touch =
        this.layout === 'single' && event.pointerType !== 'mouse' && event.isPrimary
          ? { id: event.pointerId, x: event.clientX, y: event.clientY }
          : null;
    });
    // Cancelled: the browser took the gesture (a scroll, a zoom).
    this.list.addEventListener('pointercancel', () => {
      this.touch = null;
    });
    this.list.addEventListener('pointerup', (event) => this.onPointerUp(event));
    // The click a swipe may end in (a pointer event of the same pointer) must not choose the answer it ended on.
    this.list.addEventListener(
      'click',
      (event) => {
        if (!(event instanceof PointerEvent) || event.pointerId !== this.swipedPointer) return;
        this.swipedPointer = null;
        event.preventDefault();
        event.stopPropagation();
      },
      true,
    );
    this.list.addEventListener('focusin', (event) => {
      const fieldset = (event.target as Element).closest('fieldset');
      const index = this.order.indexOf(fieldset?.dataset.itemId ?? '');
      if (fieldset === null || index < 0) return;
      this.current = index;
      // Entering an item from outside it (Tab, Shift+Tab): its question must show below the sticky header too.
      if (!fieldset.contains(event.relatedTarget as Node | null) && fieldset.getBoundingClientRect().top < this.topBottom()) {
        fieldset.scrollIntoView({ block: 'start' });
      }
    });
  }

  private onPointerUp(event: PointerEvent): void {
    const touch = this.touch;
    this.touch = null;
    if (touch === null || touch.id !== event.pointerId) return;
    const dx = event.clientX - touch.x;
    const dy = event.clientY - touch.y;
    if (Math.abs(dx) < SWIPE_DISTANCE || Math.abs(dx) < 2 * Math.abs(dy)) return;
    this.swipedPointer = event.pointerId;
    // As pages turn: swiping left brings the next statement, right the one before.
    this.go(this.current + (dx < 0 ? 1 : -1));
  }

  /** Single layout: arrows and Page keys move between statements, 1 to 5 answer the one shown. */
  private onKey(event: KeyboardEvent): void {
    this.choosingByArrow = false;
    if (this.layout !== 'single' || this.order.length === 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const step = { ArrowLeft: -1, PageUp: -1, ArrowRight: 1, PageDown: 1 }[event.key];
    if (step !== undefined) {
      event.preventDefault();
      this.go(this.current + step);
    } else if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      // The radios' own arrows choose the answer before or after: the person may be passing through the answers.
      this.choosingByArrow = true;
    } else if (/^[1-5]$/.test(event.key) && !event.shiftKey) {
      const radio = this.currentFieldset()?.querySelector<HTMLInputElement>(`input[value="${event.key}"]`);
      if (!radio || radio.disabled) return;
      event.preventDefault();
      radio.focus({ preventScroll: true });
      // As a tap would: a change event for a new answer, and a click on the one already given moves on.
      radio.click();
    }
  }

  /** The sticky header's bottom edge in the viewport. */
  private topBottom(): number {
    return this.top.getBoundingClientRect().bottom;
  }

  private measureTop(): void {
    this.frame.style.setProperty('--_top', `${this.top.getBoundingClientRect().height}px`);
  }

  private currentFieldset(): HTMLFieldSetElement | undefined {
    const itemId = this.order[this.current];
    return itemId === undefined ? undefined : this.fieldsets.get(itemId);
  }

  /**
   * Lays the items out as a list or one at a time, from now on; the current item stays current, and shows (in
   * view, below the sticky header) when the list comes back, so neither answers nor position are lost.
   */
  setLayout(layout: Layout): void {
    if (layout === this.layout) return;
    this.layout = layout;
    this.frame.dataset.layout = layout;
    const fieldset = this.currentFieldset();
    if (fieldset === undefined) return;
    if (layout === 'single') this.show(this.current);
    else if (!fieldset.disabled) fieldset.scrollIntoView({ block: 'start' });
  }

  /**
   * Single layout: shows item `index` (if there is one), says which it is, brings it into view below the sticky
   * header, and puts the focus on its answer (the chosen one, else the first), as a radio group's Tab would.
   */
  private go(index: number): void {
    if (this.layout !== 'single' || index < 0 || index >= this.order.length) return;
    this.show(index);
    const fieldset = this.currentFieldset()!;
    fieldset.scrollIntoView({ block: 'nearest' });
    const radio = fieldset.querySelector<HTMLInputElement>('input:checked') ?? fieldset.querySelector<HTMLInputElement>('input');
    radio?.focus({ preventScroll: true });
  }

  /** Makes item `index` the current one: the only one shown in the single layout. */
  private show(index: number): void {
    this.currentFieldset()?.removeAttribute('data-current');
    this.current = index;
    this.currentFieldset()?.setAttribute('data-current', '');
    this.position.textContent = this.say.position(index + 1, this.order.length);
    this.back.setAttribute('aria-disabled', String(index === 0));
    this.next.setAttribute('aria-disabled', String(index === this.order.length - 1));
  }

  /** Single layout, after an answer: on to the next unanswered item, after this one and then from the start. */
  private advance(): void {
    const count = this.order.length;
    for (let step = 1; step < count; step++) {
      const index = (this.current + step) % count;
      if (!this.answers?.isAnswered(this.order[index]!)) {
        this.go(index);
        return;
      }
    }
  }

  /**
   * Speaks `language` from now on (once the assessment says which it is in): the loading line, the progress and
   * the ending's heading are said again in it.
   */
  setLanguage(language: Language): void {
    if (this.frame.lang === language) return;
    this.say = words[language];
    this.frame.lang = language;
    this.loading.textContent = this.say.loading;
    this.progressBar.setAttribute('aria-label', this.say.progressLabel);
    this.endingHeading.textContent = this.say.done;
    this.back.textContent = this.say.back;
    this.next.textContent = this.say.next;
    if (this.order.length > 0) this.position.textContent = this.say.position(this.current + 1, this.order.length);
    if (!this.progressHeader.hidden) this.setProgress(this.progressBar.value);
  }

  showLoading(): void {
    this.loading.hidden = false;
  }

  /**
   * Renders the items in id order; `onAnswer` gets each choice the person makes, `onVisible` each item that
   * comes into view (at least half of it on screen) or leaves it, where the browser can tell.
   */
  renderItems(
    bank: ItemBank,
    answers: AnswerLookup,
    onAnswer: (itemId: string, value: number) => void,
    onVisible?: (itemId: string, visible: boolean) => void,
  ): void {
    this.loading.hidden = true;
    this.fieldsets.clear();
    this.watcher?.disconnect();
    this.answers = answers;
    const fieldsets = bank.items.map((item, index) => {
      const legendId = `legend-${item.id}`;
      const value = answers.valueOf(item.id);
      const options = bank.labels.map((label) => {
        const radio = el('input', { type: 'radio', name: item.id, value: String(label.value) });
        radio.checked = value === label.value;
        return el('label', { part: 'option' }, radio, el('span', {}, label.label));
      });
      const fieldset = el(
        'fieldset',
        { part: 'item', role: 'radiogroup', 'data-item-id': item.id, 'aria-labelledby': legendId },
        el('legend', { part: 'legend', id: legendId }, `${index + 1}. ${item.text}`),
        el('div', { class: 'options' }, ...options),
        el('p', { class: 'note', hidden: '' }, this.say.answeredElsewhere),
      );
      fieldset.addEventListener('change', (event) => {
        const target = event.target as HTMLInputElement;
        onAnswer(item.id, Number(target.value));
        if (this.layout === 'single' && !this.choosingByArrow) this.advance();
      });
      // The answer already given, chosen again, changes nothing (no change event); in the single layout it moves on.
      fieldset.addEventListener('click', (event) => {
        const target = event.target;
        if (!(target instanceof HTMLInputElement) || this.layout !== 'single' || this.choosingByArrow) return;
        if (answers.valueOf(item.id) === Number(target.value)) this.advance();
      });
      this.fieldsets.set(item.id, fieldset);
      this.markAnswered(item.id, answers.isAnswered(item.id), value !== undefined);
      return fieldset;
    });
    this.list.replaceChildren(...fieldsets);
    this.order = bank.items.map((item) => item.id);
    // Where the person stopped: the first unanswered item (or the last, all answered).
    const unanswered = this.order.findIndex((itemId) => !answers.isAnswered(itemId));
    this.show(unanswered < 0 ? this.order.length - 1 : unanswered);
    this.position.hidden = false;
    this.pager.hidden = false;
    if (onVisible === undefined || typeof IntersectionObserver !== 'function') return;
    const watcher = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const itemId = (entry.target as HTMLElement).dataset.itemId;
          if (itemId !== undefined) onVisible(itemId, entry.isIntersecting && entry.intersectionRatio >= 0.5);
        }
      },
      { threshold: [0, 0.5] },
    );
    for (const fieldset of fieldsets) watcher.observe(fieldset);
    this.watcher = watcher;
  }

  /** No more reports of what is on screen (the session ended). */
  stopWatching(): void {
    this.watcher?.disconnect();
    this.watcher = null;
    this.topWatcher?.disconnect();
  }

  /** An item answered elsewhere (no value known here) says so, since none of its radios is checked. */
  markAnswered(itemId: string, answered: boolean, valueKnown: boolean): void {
    const fieldset = this.fieldsets.get(itemId);
    if (!fieldset) return;
    fieldset.toggleAttribute('data-answered', answered);
    const note = fieldset.querySelector<HTMLElement>('.note');
    if (note) note.hidden = !answered || valueKnown;
  }

  setProgress(answered: number): void {
    this.progressHeader.hidden = false;
    const text = this.say.progress(answered, TOTAL_ITEMS);
    if (this.progressText.textContent !== text) this.progressText.textContent = text;
    this.progressBar.value = answered;
  }

  /**
   * A failure: `reference` (its code and request id, for the site owner) only when the component has given up;
   * one it retries shows the countdown instead (retryingIn). Giving up also ends the loading.
   */
  showError(message: string, reference: string | null): void {
    if (this.errorText.textContent !== message) this.errorText.textContent = message;
    this.retry.hidden = reference !== null;
    this.reference.hidden = reference === null;
    this.reference.textContent = reference ?? '';
    if (reference !== null) this.loading.hidden = true;
    this.error.hidden = false;
  }

  retryingIn(seconds: number): void {
    this.retry.textContent = this.say.retrying(seconds);
  }

  clearError(): void {
    this.errorText.textContent = '';
    this.retry.textContent = '';
    this.reference.textContent = '';
    this.error.hidden = true;
  }

  /**
   * The ending. When the person answered here, the answers stay on screen (read-only) above it, and the focus
   * moves to its heading, scrolled into view: the disabled radio that had the focus would otherwise drop it.
   * Opened on a finished assessment, the ending stands alone and takes no focus (the page has just loaded).
   */
  showDone(): void {
    this.loading.hidden = true;
    this.clearError();
    for (const fieldset of this.fieldsets.values()) fieldset.disabled = true;
    this.progressHeader.hidden = this.fieldsets.size === 0;
    this.ending.hidden = false;
    if (this.fieldsets.size === 0) return;
    this.endingHeading.focus({ preventScroll: true });
    const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.ending.scrollIntoView({ block: 'start', behavior: reduced ? 'instant' : 'smooth' });
  }

  /**
   * The person's result inside the ending, under a heading of its own (which takes the focus when `focus`): the
   * chart the API drew, parsed as SVG and stripped of anything active (scripts, foreign markup, event handlers,
   * links out), scaled to the component. Returns false for anything that is not an SVG document.
   */
  showResult(svg: string, focus: boolean): boolean {
    const parsed = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
    if (parsed.localName !== 'svg' || parsed.namespaceURI !== 'http://www.w3.org/2000/svg') return false;
    for (const node of parsed.querySelectorAll('script, foreignObject')) node.remove();
    for (const node of [parsed, ...parsed.querySelectorAll('*')]) {
      for (const { name, value } of [...node.attributes]) {
        if (/^on/i.test(name) || (/href$/i.test(name) && !value.startsWith('#'))) node.removeAttribute(name);
      }
    }
    const chart = this.root.ownerDocument.importNode(parsed, true);
    chart.setAttribute('width', '100%');
    chart.removeAttribute('height');
    const heading = el('h2', { part: 'result-heading', id: 'result-heading', tabindex: '-1' }, this.say.resultHeading);
    const result = el('section', { part: 'result', class: 'result', 'aria-labelledby': 'result-heading' }, heading, chart);
    this.ending.querySelector('.result, .result-elsewhere')?.remove();
    this.ending.append(result);
    if (!focus) return true;
    heading.focus({ preventScroll: true });
    const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
    result.scrollIntoView({ block: 'start', behavior: reduced ? 'instant' : 'smooth' });
    return true;
  }

  /** The width the result's chart has: the ending's, less its padding. */
  resultWidth(): number {
    const style = getComputedStyle(this.ending);
    return this.ending.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
  }

  /** The result could not be shown in time: the person hears of it from the caller instead. */
  resultElsewhere(): void {
    this.ending.querySelector('.result-elsewhere')?.remove();
    this.ending.append(el('p', { class: 'result-elsewhere', role: 'status' }, this.say.resultElsewhere));
  }

  /** Brings the person back to where they stopped: the first unanswered item, current since renderItems. */
  focusFirstUnanswered(answers: AnswerLookup): void {
    const fieldset = this.currentFieldset();
    if (fieldset === undefined || answers.isAnswered(this.order[this.current]!)) return;
    fieldset.scrollIntoView({ block: this.layout === 'single' ? 'nearest' : 'center' });
    fieldset.querySelector<HTMLInputElement>('input')?.focus({ preventScroll: true });
  }
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}
