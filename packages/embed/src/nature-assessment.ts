// <nature-assessment>: reads its attributes, loads the assessment and the item bank in its language, and wires
// the view to the outbox. Each start (connect, or a change of key, secret, ids or language) is a session of its
// own, so a late answer of an old session never touches the new one.

import {
  type Api,
  type ApiError,
  type AssessmentState,
  type ChartOptions,
  closedOutcome,
  createApi,
  type ItemBank,
  isRetryable,
  type Result,
  retryDelay,
  TOTAL_ITEMS,
} from './api.js';
import { countdown, type Timers } from './countdown.js';
import { type Language, type LanguageSources, resolveLanguage, supportedLanguage } from './language.js';
import { chooseLayout, type Layout } from './layout.js';
import { explain } from './messages.js';
import { Outbox, type StorageLike } from './outbox.js';
import { View } from './render.js';
import { type AnswerTiming, ItemClock, ServerClock } from './timing.js';
import { words } from './words.js';

const REQUIRED = ['publishable-key', 'client-secret', 'subject-id', 'assessment-id'] as const;
const DEFAULT_BATCH_SIZE = 10;
/** How many times the ending asks for the result (about 30 s of back-off) before saying it will come another way. */
const RESULT_ATTEMPTS = 6;
/** The API is, unless told otherwise, where this module was served from. */
const MODULE_ORIGIN = new URL(import.meta.url).origin;

export interface ProgressDetail {
  answered: number;
  saved: number;
  total: number;
}
export interface SubmittedDetail {
  assessment_id: string;
  status: string;
}
export interface ErrorDetail {
  code: string;
  status: number | null;
  title: string;
  detail: string;
  request_id: string | null;
  retrying: boolean;
}

export class NatureAssessment extends HTMLElement {
  static readonly observedAttributes = [...REQUIRED, 'language', 'layout'];
  private readonly root: ShadowRoot;
  private session: Session | null = null;
  /** The current start's view: a change of layout or width lays it out again, without starting over. */
  private view: View | null = null;
  private connected = false;
  private startPending = false;
  /** Without a layout attribute, the element's own width chooses the layout, as it changes. */
  private readonly resizeWatcher = typeof ResizeObserver === 'function' ? new ResizeObserver(() => this.applyLayout()) : null;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
  }

  connectedCallback(): void {
    this.connected = true;
    this.resizeWatcher?.observe(this);
    this.scheduleStart();
  }

  disconnectedCallback(): void {
    this.connected = false;
    this.resizeWatcher?.disconnect();
    this.session?.end();
    this.session = null;
  }

  attributeChangedCallback(name: string, previous: string | null, next: string | null): void {
    if (previous === next || !this.connected) return;
    if (name === 'layout') this.applyLayout();
    else this.scheduleStart();
  }

  private layout(): Layout {
    return chooseLayout(this.getAttribute('layout'), this.getBoundingClientRect().width);
  }

  private applyLayout(): void {
    this.view?.setLayout(this.layout());
  }

  /**
   * Starts (over) once the current task is done: a page that sets the four attributes one after the other
   * gets one start with all of them, and a listener added right after the element still hears its events.
   */
  private scheduleStart(): void {
    if (this.startPending) return;
    this.startPending = true;
    queueMicrotask(() => {
      this.startPending = false;
      if (this.connected) this.start();
    });
  }

  private start(): void {
    this.session?.end();
    // Until the assessment says which language it is in: the attribute's, else the page's.
    const languages: LanguageSources = { attribute: this.getAttribute('language'), page: pageLanguage(this) };
    const language = resolveLanguage(languages);
    const view = new View(this.root, language, this.layout());
    this.view = view;
    const missing = REQUIRED.find((name) => !this.getAttribute(name)?.trim());
    if (missing) {
      this.session = null;
      view.showError(words[language].missingAttribute(missing), words[language].reference('missing_attribute', null));
      // The event's detail is in English whatever the language, as the API's own details are: it is for developers.
      emit<ErrorDetail>(this, 'nature:error', {
        code: 'missing_attribute',
        status: null,
        title: 'Missing attribute',
        detail: words.en.missingAttribute(missing),
        request_id: null,
        retrying: false,
      });
      return;
    }
    const attribute = (name: string) => (this.getAttribute(name) ?? '').trim();
    this.session = new Session(this, view, {
      base: attribute('api-base') || MODULE_ORIGIN,
      publishableKey: attribute('publishable-key'),
      clientSecret: attribute('client-secret'),
      subjectId: attribute('subject-id'),
      assessmentId: attribute('assessment-id'),
      batchSize: parseBatchSize(this.getAttribute('batch-size')),
      languages,
      language,
    });
  }
}

/**
 * The page's language where the element stands: the `lang` of the closest element that has one (the element
 * itself, its ancestors, out of any shadow root to its host), else the document's.
 */
function pageLanguage(element: Element): string | null {
  for (let at: Element | null = element; at !== null; ) {
    const lang = at.getAttribute('lang');
    if (lang !== null) return lang;
    const root = at.getRootNode();
    at = at.parentElement ?? (root instanceof ShadowRoot ? root.host : null);
  }
  return document.documentElement.lang || null;
}

/** The component's events cross the shadow boundary and bubble, so a page may listen on any ancestor. */
function emit<T>(host: HTMLElement, type: string, detail: T): void {
  host.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
}

interface SessionConfig {
  base: string;
  publishableKey: string;
  clientSecret: string;
  subjectId: string;
  assessmentId: string;
  batchSize: number;
  /** Where the language comes from, the assessment's aside (known once it is loaded). */
  languages: LanguageSources;
  /** The language resolved from them at the start. */
  language: Language;
}

class Session {
  private readonly host: HTMLElement;
  private readonly view: View;
  private readonly assessmentId: string;
  private readonly languages: LanguageSources;
  /** The language the element speaks: as resolved at the start, then as the loaded assessment settles it. */
  private language: Language;
  private readonly api: Api;
  private readonly outbox: Outbox;
  private readonly timers: Timers = { set: (callback, ms) => setTimeout(callback, ms), clear: (handle) => clearTimeout(handle as number) };
  /** Cancels the wait before load() tries again, while one runs. */
  private loadWait: (() => void) | null = null;
  private ended = false;
  /** Whether the caller lets the person see their result, as the assessment said when it was loaded or answered. */
  private resultVisible = false;
  /** Cancels the wait before showResult() asks again, while one runs. */
  private resultWait: (() => void) | null = null;
  /** The server's clock, from the Date headers of this session's API responses: answered_at is in its time. */
  private readonly serverClock = new ServerClock(
    () => performance.now(),
    () => Date.now(),
  );
  /** When each item became current to the person, from when the items were rendered: response_time_ms. */
  private itemClock: ItemClock | null = null;
  private readonly onPageHide = () => void this.outbox.flush(true);
  private readonly onVisibility = () => {
    // Hidden may come back: a wait for the server's Retry-After goes on (pagehide sends regardless).
    if (document.visibilityState === 'hidden') void this.outbox.hide();
    // Shown again: the items in view are in front of the person again from now.
    else this.itemClock?.pageShown(performance.now());
  };

  constructor(host: HTMLElement, view: View, config: SessionConfig) {
    this.host = host;
    this.view = view;
    this.assessmentId = config.assessmentId;
    this.languages = config.languages;
    this.language = config.language;
    this.api = createApi({
      ...config,
      fetch: (url, init) => fetch(url, init as RequestInit),
      onServerDate: (date) => this.serverClock.observe(date),
    });
    this.outbox = new Outbox({
      storage: localStorageOrMemory(),
      assessmentId: config.assessmentId,
      batchSize: config.batchSize,
      submit: this.api.submit,
      newKey: () => crypto.randomUUID(),
      timers: this.timers,
      listener: {
        accepted: () => {
          if (this.ended) return;
          // A refusal of another batch (sending stopped) stays on screen.
          if (!this.outbox.haltedBy) this.view.clearError();
          this.progress();
        },
        submitted: (assessment) => this.finish(assessment),
        finished: () => {
          this.showFinished();
          void this.showResult(false);
        },
        failed: (error, retrying) => this.fail(error, retrying),
        retryingIn: (seconds) => {
          if (!this.ended) this.view.retryingIn(seconds);
        },
      },
    });
    addEventListener('pagehide', this.onPageHide);
    document.addEventListener('visibilitychange', this.onVisibility);
    void this.open();
  }

  /** Sends what is waiting (the request outlives the page), then stops; the outbox keeps the rest. */
  end(): void {
    if (this.ended) return;
    void this.outbox.flush(true);
    this.ended = true;
    this.outbox.dispose();
    this.view.stopWatching();
    this.loadWait?.();
    this.resultWait?.();
    removeEventListener('pagehide', this.onPageHide);
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  private async open(): Promise<void> {
    if (this.outbox.submitted) {
      this.view.showDone();
      // Reopened after the end: the result too, if the caller allows it (its secret is refused otherwise).
      return this.showResult(false);
    }
    this.view.showLoading();
    // A batch left in flight by the last visit goes first: it may be the one that closed the assessment.
    await this.outbox.resume();
    if (this.ended || this.outbox.submitted) return;
    const loaded = await this.load();
    if (!loaded || this.ended || this.outbox.submitted) return;
    const [bank, assessment] = loaded;
    this.resultVisible = assessment.result_visible_to_subject;
    // A GET with the secret succeeds only while the assessment is open (created, in_progress): a closed one
    // is a 401 carrying its assessment_status, handled in load(). So the items are always answerable here.
    this.outbox.reconcile(assessment);
    const itemClock = new ItemClock(performance.now());
    this.itemClock = itemClock;
    this.view.renderItems(
      bank,
      this.outbox,
      (itemId, value) => this.answer(itemId, value),
      (itemId, visible) => itemClock.visible(itemId, visible, performance.now()),
    );
    this.view.setProgress(this.outbox.answered);
    if (this.outbox.answered > 0) this.view.focusFirstUnanswered(this.outbox);
    void this.outbox.flush(false);
  }

  /** The item bank and the assessment, retried with backoff while the failure is a passing one. */
  private async load(): Promise<[ItemBank, AssessmentState] | null> {
    for (let attempt = 1; ; attempt += 1) {
      const loaded = await this.fetchBankAndAssessment();
      if (this.ended) return null;
      if (loaded.ok) {
        // Only this loop's own message: a refusal of the resent batch must stay on screen.
        if (attempt > 1) this.view.clearError();
        return loaded.value;
      }
      const { error } = loaded;
      // Reopened after the person finished (here or elsewhere): the done state, not an error.
      if (closedOutcome(error) === 'finished') {
        this.outbox.markFinished();
        this.showFinished();
        void this.showResult(false);
        return null;
      }
      const retrying = isRetryable(error);
      this.fail(error, retrying);
      if (!retrying) return null;
      await new Promise<void>((resolve) => {
        this.loadWait = countdown(
          this.timers,
          retryDelay(attempt, error, Math.random),
          (seconds) => this.view.retryingIn(seconds),
          () => {
            this.loadWait = null;
            resolve();
          },
        );
      });
    }
  }

  /**
   * The assessment, and the item bank in the language the element speaks: side by side when the attribute
   * settles the language, else the assessment first, since its language decides the bank's.
   */
  private async fetchBankAndAssessment(): Promise<Result<[ItemBank, AssessmentState]>> {
    const chosen = supportedLanguage(this.languages.attribute);
    if (chosen !== null) return both(...(await Promise.all([this.api.assessment(), this.api.items(chosen)])));
    const assessment = await this.api.assessment();
    if (!assessment.ok) return assessment;
    this.language = resolveLanguage({ ...this.languages, assessment: assessment.value.language });
    this.view.setLanguage(this.language);
    return both(assessment, await this.api.items(this.language));
  }

  private answer(itemId: string, value: number): void {
    this.outbox.give(itemId, value, this.timing(itemId));
    this.view.markAnswered(itemId, true, true);
    this.progress();
  }

  /**
   * The timing of an answer chosen now, read at the choice (the outbox sends it later): how long the item had
   * been current, and when, in the server's clock.
   */
  private timing(itemId: string): AnswerTiming | undefined {
    if (this.itemClock === null) return undefined;
    const at = performance.now();
    return {
      answered_at: new Date(this.serverClock.at(at)).toISOString(),
      response_time_ms: this.itemClock.answered(itemId, at),
    };
  }

  private progress(): void {
    const answered = this.outbox.answered;
    this.view.setProgress(answered);
    emit<ProgressDetail>(this.host, 'nature:progress', { answered, saved: this.outbox.saved, total: TOTAL_ITEMS });
  }

  /** Already scoring or completed when this visit learnt of it: done, without a second nature:submitted. */
  private showFinished(): void {
    if (this.ended) return;
    this.view.clearError();
    this.view.setProgress(TOTAL_ITEMS);
    this.view.showDone();
    emit<ProgressDetail>(this.host, 'nature:progress', { answered: TOTAL_ITEMS, saved: TOTAL_ITEMS, total: TOTAL_ITEMS });
  }

  private finish(assessment: AssessmentState): void {
    if (this.ended) return;
    this.view.setProgress(TOTAL_ITEMS);
    this.view.showDone();
    emit<SubmittedDetail>(this.host, 'nature:submitted', { assessment_id: this.assessmentId, status: assessment.status });
    this.resultVisible ||= assessment.result_visible_to_subject;
    if (this.resultVisible) void this.showResult(true);
  }

  /**
   * The person's result, when the caller allows it: the subject's latest profile is asked for with the secret,
   * with back-off while it is being scored, then its chart is drawn in the ending (`focus`: after an answer given
   * here, not on a page just opened). While this visit does not know the caller allows it, a refusal means it
   * does not (the ending stays as it is); known to be allowed, no result after RESULT_ATTEMPTS tries says it
   * will come another way.
   */
  private async showResult(focus: boolean): Promise<void> {
    for (let attempt = 1; !this.ended; attempt += 1) {
      const profile = await this.api.latestProfile();
      if (this.ended) return;
      let failure: ApiError;
      if (profile.ok) {
        const chart = await this.api.chart(profile.value.id, this.chartOptions());
        if (this.ended) return;
        if (chart.ok) {
          if (!this.view.showResult(chart.value, focus)) this.view.resultElsewhere();
          return;
        }
        failure = chart.error;
      } else failure = profile.error;
      // Refused while scoring (the secret opens the profile once it exists), or a passing failure.
      const waiting = isRetryable(failure) || (this.resultVisible && failure.status === 401);
      if (!waiting) return;
      if (attempt === RESULT_ATTEMPTS) return this.resultVisible ? this.view.resultElsewhere() : undefined;
      await new Promise<void>((resolve) => {
        const handle = this.timers.set(resolve, retryDelay(attempt, failure, Math.random));
        this.resultWait = () => {
          this.timers.clear(handle);
          resolve();
        };
      });
      this.resultWait = null;
    }
  }

  /** As wide as the ending's content, in the page's declared colour scheme (CSS color-scheme: dark). */
  private chartOptions(): ChartOptions {
    const width = Math.min(1600, Math.max(320, Math.round(this.view.resultWidth() || 960)));
    const scheme = getComputedStyle(this.host).colorScheme;
    return { width, theme: scheme.includes('dark') && !scheme.includes('light') ? 'dark' : 'light' };
  }

  private fail(error: ApiError, retrying: boolean): void {
    if (this.ended) return;
    const reference = retrying ? null : words[this.language].reference(error.code, error.request_id);
    this.view.showError(explain(error, location.origin, this.language), reference);
    const { code, status, title, detail, request_id } = error;
    emit<ErrorDetail>(this.host, 'nature:error', { code, status, title, detail, request_id, retrying });
  }
}

function parseBatchSize(value: string | null): number {
  const size = Number(value);
  return value !== null && Number.isInteger(size) && size >= 1 && size <= TOTAL_ITEMS ? size : DEFAULT_BATCH_SIZE;
}

/** Both values, or the first failure: the assessment's first, as its refusal may say the person has finished. */
function both(assessment: Result<AssessmentState>, bank: Result<ItemBank>): Result<[ItemBank, AssessmentState]> {
  if (!assessment.ok) return assessment;
  return bank.ok ? { ok: true, value: [bank.value, assessment.value] } : bank;
}

/** localStorage, or for this visit only a map where the browser refuses it (some private modes, sandboxed frames). */
function localStorageOrMemory(): StorageLike {
  try {
    const storage = window.localStorage;
    storage.getItem('nature-assessment:probe');
    return storage;
  } catch {
    const map = new Map<string, string>();
    return { getItem: (key) => map.get(key) ?? null, setItem: (key, value) => void map.set(key, value) };
  }
}
