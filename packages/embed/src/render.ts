// The component's DOM: a progress header, an error area, the 76 items as native radio groups, and the
// ending. Native radios give keyboard use for free (Tab between items, arrows within one).

import { type ItemBank, TOTAL_ITEMS } from './api.js';
import type { Language } from './language.js';
import { styles } from './styles.js';
import { type Words, words } from './words.js';

/** What the view needs to know about an item's answer. */
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
  /** Reports which items are on screen, while the items are (renderItems to stopWatching). */
  private watcher: IntersectionObserver | null = null;
  private say: Words;

  constructor(root: ShadowRoot, language: Language) {
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
    const top = el('div', { class: 'top' }, this.progressHeader, this.error);
    this.frame = el('div', { lang: language }, top, this.loading, this.list, this.ending);
    root.replaceChildren(style, this.frame);
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
    this.stopWatching();
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
      });
      this.fieldsets.set(item.id, fieldset);
      this.markAnswered(item.id, answers.isAnswered(item.id), value !== undefined);
      return fieldset;
    });
    this.list.replaceChildren(...fieldsets);
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

  /** Brings the person back to where they stopped. */
  focusFirstUnanswered(answers: AnswerLookup): void {
    for (const [itemId, fieldset] of this.fieldsets) {
      if (answers.isAnswered(itemId)) continue;
      fieldset.scrollIntoView({ block: 'center' });
      fieldset.querySelector<HTMLInputElement>('input')?.focus({ preventScroll: true });
      return;
    }
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
