// The local outbox: every answer is written to storage before anything else, batched, and sent; each batch
// (its Idempotency-Key and body) is persisted before it is sent, so a retry, even after a reload, repeats
// exactly the same request. Storage, the network and timers are injected.
//
// Normally one batch is in flight at a time. Leaving the page while one is in flight sends the pending
// answers at once as a second batch, without the items of the batches in flight (those stay pending for the
// next visit): two requests under way may arrive in either order, so no item may be in both. Batches in
// storage are therefore always about different items.
//
// Each answer's timing (when it was chosen, how long it took: timing.ts) is stored beside it and goes into
// the batch with it; being part of the persisted body, a resend carries the same values.

import {
  type Answer,
  type ApiError,
  type AssessmentState,
  closedOutcome,
  isOpen,
  isRetryable,
  type Result,
  retryDelay,
  TOTAL_ITEMS,
} from './api.js';
import { countdown, type Timers } from './countdown.js';
import { type AnswerTiming, MAX_RESPONSE_TIME_MS } from './timing.js';

/** The part of `localStorage` used here. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export interface InflightBatch {
  key: string;
  responses: Answer[];
}

/** The timing of the answer given to an item, with the value it belongs to. */
export interface StoredTiming extends AnswerTiming {
  value: number;
}

export interface OutboxState {
  /** Every answer given on this browser, latest value: shown again when the person comes back. */
  answers: Record<string, number>;
  /**
   * The timing of those answers, per item: sent with the answer while its value is the one it was taken for
   * (another tab may have stored a newer value without it). Absent for answers stored by an older version.
   */
  timing: Record<string, StoredTiming>;
  /** Answers not yet in a batch, oldest first; a newer answer to an item replaces the older. */
  pending: Record<string, number>;
  /** Batches sent (or about to be) and not yet accepted, oldest first; resent in this order after a reload. */
  inflight: InflightBatch[];
  /** All 76 were accepted: the answers themselves are then dropped from storage. */
  submitted: boolean;
}

export interface OutboxListener {
  /** A batch was accepted; `assessment` is the server's answer. */
  accepted(assessment: AssessmentState): void;
  /** The batch that completed the 76 was accepted (called once). */
  submitted(assessment: AssessmentState): void;
  /** The server says the assessment is already scoring or completed (finished in an earlier visit or elsewhere). */
  finished(status: string): void;
  /** A batch failed; with `retrying` false, sending stopped and the answers stay in the outbox. */
  failed(error: ApiError, retrying: boolean): void;
  /** After a reported failure: the whole seconds until the retry goes, each second; 0 as it goes. */
  retryingIn(seconds: number): void;
}

export interface OutboxOptions {
  storage: StorageLike;
  assessmentId: string;
  batchSize: number;
  /**
   * Sends one batch. `leaving`: sent as the page goes away (no timeout: the request must outlive the page);
   * otherwise the request gives up after a while and counts as a network error.
   */
  submit: (idempotencyKey: string, responses: Answer[], leaving: boolean) => Promise<Result<AssessmentState>>;
  newKey: () => string;
  timers: Timers;
  /**
   * A due batch waits until no answer came for this long (default 600 ms), so arrowing through an item's
   * options does not send the values passed on the way. The 76th answer and leaving the page go at once.
   */
  settleMs?: number;
  random?: () => number;
  listener: OutboxListener;
}

export const storageKey = (assessmentId: string) => `nature-assessment:${assessmentId}`;

export const DEFAULT_SETTLE_MS = 600;

export class Outbox {
  private readonly options: OutboxOptions;
  private readonly key: string;
  private state: OutboxState;
  /** Items the server lacks, as of its last answer; null until it has told us. */
  private serverUnanswered: Set<string> | null = null;
  private savedCount = 0;
  /** Keys of the batches whose request is under way. */
  private readonly active = new Set<string>();
  /** Cancels the wait before the next retry, while one runs. */
  private retryWait: (() => void) | null = null;
  private settleTimer: unknown = null;
  private attempt = 0;
  private halted: ApiError | null = null;
  private disposed = false;
  /** flush(false) asked for the pending answers to go, whatever their number, once nothing is under way or waiting. */
  private flushRequested = false;
  /** The retry waiting in retryWait waits out the server's Retry-After. */
  private retryAfterServer = false;
  /** The item just answered here, until it is saved: the newest value, over what another tab stored for it. */
  private changed: string | null = null;
  /** Batch keys this tab loaded or made: a stored batch with another key belongs to another tab and is kept in storage. */
  private readonly ownKeys = new Set<string>();

  constructor(options: OutboxOptions) {
    this.options = options;
    this.key = storageKey(options.assessmentId);
    this.state = load(options.storage, this.key);
    for (const batch of this.state.inflight) this.ownKeys.add(batch.key);
  }

  get submitted(): boolean {
    return this.state.submitted;
  }

  /** Answers the person has given, saved or not. */
  get answered(): number {
    if (this.state.submitted) return TOTAL_ITEMS;
    if (this.serverUnanswered === null) return Object.keys(this.state.answers).length;
    let missing = 0;
    for (const id of this.serverUnanswered) if (!(id in this.state.answers)) missing += 1;
    return TOTAL_ITEMS - missing;
  }

  /** Answers the server holds (its responses_received). */
  get saved(): number {
    return this.savedCount;
  }

  get pendingCount(): number {
    return Object.keys(this.state.pending).length;
  }

  get inflight(): readonly InflightBatch[] {
    return this.state.inflight;
  }

  /** The refusal that stopped sending, if one did. */
  get haltedBy(): ApiError | null {
    return this.halted;
  }

  /** The value given on this browser, if any. */
  valueOf(itemId: string): number | undefined {
    return this.state.answers[itemId];
  }

  isAnswered(itemId: string): boolean {
    return itemId in this.state.answers || (this.serverUnanswered !== null && !this.serverUnanswered.has(itemId));
  }

  /**
   * Takes the server's view of the assessment: answers given here that it lacks and that are neither
   * pending nor in flight (a batch refused earlier, say) are queued again.
   */
  reconcile(assessment: AssessmentState): void {
    this.learn(assessment);
    const inflight = this.inflightItems();
    for (const [itemId, value] of Object.entries(this.state.answers)) {
      if (this.serverUnanswered?.has(itemId) && !(itemId in this.state.pending) && !inflight.has(itemId)) {
        this.state.pending[itemId] = value;
      }
    }
    this.save();
  }

  /** The server says the assessment is scoring or completed: every answer is in, only that fact is kept. */
  markFinished(): void {
    this.clearTimers();
    this.state = { answers: {}, timing: {}, pending: {}, inflight: [], submitted: true };
    this.save();
  }

  /**
   * Records an answer with the timing taken when the person chose it (persisted first), then sends a batch if
   * one is due (after the answers settle).
   */
  give(itemId: string, value: number, timing?: AnswerTiming): void {
    if (this.state.submitted) return;
    this.state.answers[itemId] = value;
    if (timing) this.state.timing[itemId] = { value, answered_at: timing.answered_at, response_time_ms: timing.response_time_ms };
    else delete this.state.timing[itemId];
    this.changed = itemId;
    // Deleting first moves a changed answer to the end, so the pending set stays in answer order.
    delete this.state.pending[itemId];
    this.state.pending[itemId] = value;
    this.save();
    this.clearSettle();
    const settleMs = this.options.settleMs ?? DEFAULT_SETTLE_MS;
    if (settleMs > 0 && this.answered < TOTAL_ITEMS) {
      this.settleTimer = this.options.timers.set(() => {
        this.settleTimer = null;
        this.next();
      }, settleMs);
    }
    this.next();
  }

  /** Resends the batches left in flight by an earlier visit, one after the other; resolves after the first attempt of the first. */
  resume(): Promise<void> {
    const first = this.state.inflight[0];
    return first && this.active.size === 0 && !this.halted && !this.disposed ? this.send(first, false) : Promise.resolve();
  }

  /**
   * Sends what is waiting now, whatever the batch size. On reopening (`leaving` false): the stored batches
   * first, then the pending answers, once no request is under way and no retry waits. On leaving the page
   * (`leaving` true): at once, stored batches not under way and a new batch of the pending answers whose
   * items are not in a stored batch.
   */
  flush(leaving: boolean): Promise<void> {
    if (this.disposed || this.halted) return Promise.resolve();
    this.clearSettle();
    if (!leaving) {
      this.flushRequested = true;
      this.next();
      return Promise.resolve();
    }
    this.clearRetry();
    const sends = this.state.inflight.filter((batch) => !this.active.has(batch.key)).map((batch) => this.send(batch, true));
    const extra = this.takeBatch();
    if (extra) sends.push(this.send(extra, true));
    return Promise.all(sends).then(() => undefined);
  }

  /**
   * The page was hidden (it may come back): as leaving, except that a retry waiting out the server's
   * Retry-After keeps waiting (sending now would only be refused again). `pagehide` still sends at once.
   */
  hide(): Promise<void> {
    return this.retryWait !== null && this.retryAfterServer ? Promise.resolve() : this.flush(true);
  }

  /** Stops timers; what is persisted stays for the next visit. */
  dispose(): void {
    this.disposed = true;
    this.clearTimers();
  }

  /** Starts the next request when none is under way: a stored batch first, else a new one when due. */
  private next(): void {
    if (this.disposed || this.halted || this.state.submitted || this.active.size > 0 || this.retryWait !== null) return;
    const stored = this.state.inflight[0];
    if (stored) {
      void this.send(stored, false);
      return;
    }
    const pending = this.pendingCount;
    if (pending === 0) {
      // Nothing was left to flush: the next answer waits for batch-size and settles as usual.
      this.flushRequested = false;
      return;
    }
    const all = this.answered === TOTAL_ITEMS || this.flushRequested;
    if (all || (pending >= this.options.batchSize && this.settleTimer === null)) {
      // A due batch is the batch-size oldest answers (more may have come while it waited); the last ones, or
      // what a reopened page found waiting, go all at once.
      this.flushRequested = false;
      const batch = this.takeBatch(all ? TOTAL_ITEMS : this.options.batchSize);
      if (batch) void this.send(batch, false);
    }
  }

  private async send(batch: InflightBatch, leaving: boolean): Promise<void> {
    this.active.add(batch.key);
    const result = await this.options.submit(batch.key, batch.responses, leaving);
    this.active.delete(batch.key);
    if (this.disposed || this.state.submitted) return;
    if (result.ok) this.accept(batch, result.value);
    else if (closedOutcome(result.error) === 'finished') return this.finished(result.error);
    else if (isRetryable(result.error)) this.scheduleRetry(result.error);
    else this.halt(batch, result.error);
    this.next();
  }

  /**
   * Moves the oldest pending answers (at most `limit`) into a new batch, persisted before it is sent. Items
   * of a batch already stored stay pending: the two requests could arrive in either order and the older value win.
   */
  private takeBatch(limit = TOTAL_ITEMS): InflightBatch | null {
    const busy = this.inflightItems();
    const entries = Object.entries(this.state.pending)
      .filter(([itemId]) => !busy.has(itemId))
      .slice(0, limit);
    if (entries.length === 0) return null;
    const batch = { key: this.options.newKey(), responses: entries.map(([itemId, value]) => this.response(itemId, value)) };
    this.ownKeys.add(batch.key);
    for (const [itemId] of entries) delete this.state.pending[itemId];
    this.state.inflight.push(batch);
    this.save();
    return batch;
  }

  /** An answer as sent: with its timing, when that was taken for this value. */
  private response(itemId: string, value: number): Answer {
    const timing = this.state.timing[itemId];
    if (timing?.value !== value) return { item_id: itemId, value };
    return { item_id: itemId, value, answered_at: timing.answered_at, response_time_ms: timing.response_time_ms };
  }

  private accept(batch: InflightBatch, assessment: AssessmentState): void {
    this.attempt = 0;
    this.state.inflight = this.state.inflight.filter((candidate) => candidate.key !== batch.key);
    this.learn(assessment);
    const complete = !isOpen(assessment.status) && assessment.responses_received >= TOTAL_ITEMS;
    if (complete && !this.state.submitted) {
      // Everything is on the server: keep only the fact, not the person's answers.
      this.markFinished();
      this.options.listener.accepted(assessment);
      this.options.listener.submitted(assessment);
      return;
    }
    this.save();
    this.options.listener.accepted(assessment);
  }

  /** Closed as scoring or completed before this batch came: all 76 are in, nothing is left to send. */
  private finished(error: ApiError): void {
    this.markFinished();
    this.options.listener.finished(error.assessment_status ?? 'completed');
  }

  private scheduleRetry(error: ApiError): void {
    this.clearRetry();
    this.attempt += 1;
    const delay = retryDelay(this.attempt, error, this.options.random ?? Math.random);
    this.retryAfterServer = error.retryAfterMs !== null;
    // "Still running" is usually our own earlier copy of this batch (the keepalive flush of the page before a
    // reload): a quiet wait, nothing the person or the page needs to hear about.
    const quiet = error.code === 'idempotency_key_in_use';
    if (!quiet) this.options.listener.failed(error, true);
    this.retryWait = countdown(
      this.options.timers,
      delay,
      (seconds) => {
        if (!quiet) this.options.listener.retryingIn(seconds);
      },
      () => {
        this.retryWait = null;
        this.next();
      },
    );
  }

  /**
   * A failure retrying cannot fix: the batch goes back to pending (behind newer answers), each answer with the
   * timing it was sent with, and sending stops.
   */
  private halt(batch: InflightBatch, error: ApiError): void {
    const pending: Record<string, number> = {};
    for (const { item_id, value, answered_at, response_time_ms } of batch.responses) {
      pending[item_id] = value;
      if (item_id in this.state.pending || answered_at === undefined || response_time_ms === undefined) continue;
      this.state.timing[item_id] = { value, answered_at, response_time_ms };
    }
    this.state.pending = { ...pending, ...this.state.pending };
    this.state.inflight = this.state.inflight.filter((candidate) => candidate.key !== batch.key);
    this.clearTimers();
    this.save();
    this.halted = error;
    this.options.listener.failed(error, false);
  }

  private learn(assessment: AssessmentState): void {
    // Two requests under way may answer in either order: the server's count only grows, so the larger is newer.
    if (this.serverUnanswered !== null && assessment.responses_received < this.savedCount) return;
    this.serverUnanswered = new Set(assessment.unanswered_item_ids);
    this.savedCount = assessment.responses_received;
  }

  private inflightItems(): Set<string> {
    return new Set(this.state.inflight.flatMap((batch) => batch.responses.map((answer) => answer.item_id)));
  }

  private clearRetry(): void {
    this.retryWait?.();
    this.retryWait = null;
  }

  private clearSettle(): void {
    if (this.settleTimer === null) return;
    this.options.timers.clear(this.settleTimer);
    this.settleTimer = null;
  }

  private clearTimers(): void {
    this.clearRetry();
    this.clearSettle();
  }

  /**
   * Writes this tab's state merged into what is stored now: another tab on the same assessment writes the
   * same key, and neither may erase the other's answers. Per item the answer saved last wins; other tabs'
   * pending answers and batches are kept as stored (they send them themselves, or the next visit does).
   */
  private save(): void {
    try {
      let record: OutboxState = this.state;
      if (!this.state.submitted) {
        const stored = load(this.options.storage, this.key);
        // Another tab saw all 76 accepted: nothing of this tab's is left to keep.
        if (stored.submitted) return;
        // Per item, the value saved last (by any tab) wins: what is stored, unless this tab has just answered it.
        const answers = { ...this.state.answers, ...stored.answers };
        const timing = { ...this.state.timing, ...stored.timing };
        if (this.changed !== null) {
          answers[this.changed] = this.state.answers[this.changed] as number;
          const own = this.state.timing[this.changed];
          if (own) timing[this.changed] = own;
          else delete timing[this.changed];
        }
        // This tab's items: pending or in a batch here. Stored pending answers to any other item are another
        // tab's (its later change to an item this tab sent, say) and are kept.
        const ours = new Set([...Object.keys(this.state.pending), ...this.inflightItems()]);
        const foreignPending = Object.fromEntries(Object.entries(stored.pending).filter(([itemId]) => !ours.has(itemId)));
        const foreignBatches = stored.inflight.filter((batch) => !this.ownKeys.has(batch.key));
        record = {
          answers,
          timing,
          pending: { ...foreignPending, ...this.state.pending },
          inflight: [...this.state.inflight, ...foreignBatches],
          submitted: false,
        };
      }
      this.changed = null;
      this.options.storage.setItem(this.key, JSON.stringify(record));
    } catch {
      // Storage full or refused (a private window): the answers still live in memory for this visit.
    }
  }
}

function load(storage: StorageLike, key: string): OutboxState {
  const empty: OutboxState = { answers: {}, timing: {}, pending: {}, inflight: [], submitted: false };
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(key) ?? 'null');
  } catch {
    return empty;
  }
  if (typeof raw !== 'object' || raw === null) return empty;
  const stored = raw as Partial<Record<keyof OutboxState, unknown>>;
  const batches = Array.isArray(stored.inflight) ? stored.inflight : [];
  return {
    answers: values(stored.answers),
    timing: timings(stored.timing),
    pending: values(stored.pending),
    inflight: batches.map(readBatch).filter((batch): batch is InflightBatch => batch !== null),
    submitted: stored.submitted === true,
  };
}

function readBatch(value: unknown): InflightBatch | null {
  const batch = value as Partial<InflightBatch> | null;
  if (typeof batch !== 'object' || batch === null || typeof batch.key !== 'string' || !Array.isArray(batch.responses)) return null;
  const responses = batch.responses
    .filter(isAnswer)
    .map(({ item_id, value, answered_at, response_time_ms }) =>
      isTiming({ answered_at, response_time_ms }) ? { item_id, value, answered_at, response_time_ms } : { item_id, value },
    );
  return responses.length > 0 ? { key: batch.key, responses } : null;
}

/** Keeps the stored timings that are still timings of an answer. */
function timings(map: unknown): Record<string, StoredTiming> {
  const out: Record<string, StoredTiming> = {};
  if (typeof map !== 'object' || map === null) return out;
  for (const [itemId, entry] of Object.entries(map)) {
    const timing = entry as Partial<StoredTiming> | null;
    const value = timing?.value;
    if (typeof timing !== 'object' || timing === null || !Number.isInteger(value) || !isTiming(timing)) continue;
    out[itemId] = { value: value as number, answered_at: timing.answered_at, response_time_ms: timing.response_time_ms };
  }
  return out;
}

function isTiming(timing: Partial<AnswerTiming>): timing is AnswerTiming {
  const { answered_at, response_time_ms } = timing;
  return (
    typeof answered_at === 'string' &&
    Number.isInteger(response_time_ms) &&
    (response_time_ms as number) >= 0 &&
    (response_time_ms as number) <= MAX_RESPONSE_TIME_MS
  );
}

/** Keeps the entries of a stored answer map that are still answers (storage is shared with the page). */
function values(map: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof map !== 'object' || map === null) return out;
  for (const [itemId, value] of Object.entries(map)) if (Number.isInteger(value)) out[itemId] = value as number;
  return out;
}

function isAnswer(value: unknown): value is Answer {
  const answer = value as Partial<Answer> | null;
  return typeof answer === 'object' && answer !== null && typeof answer.item_id === 'string' && Number.isInteger(answer.value);
}
