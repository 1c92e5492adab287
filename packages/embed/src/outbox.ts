// The local outbox: every answer is written to storage before anything else, batched, and sent one batch
// at a time; the batch in flight (its Idempotency-Key and body) is persisted before it is sent, so a retry,
// even after a reload, repeats exactly the same request. Storage, the network and timers are injected.

import { type Answer, type ApiError, type AssessmentState, type Result, TOTAL_ITEMS, isOpen, isRetryable, retryDelay } from './api.js';

/** The part of `localStorage` used here. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface InflightBatch {
  key: string;
  responses: Answer[];
}

export interface OutboxState {
  /** Every answer given on this browser, latest value: shown again when the person comes back. */
  answers: Record<string, number>;
  /** Answers not yet in a batch, oldest first; a newer answer to an item replaces the older. */
  pending: Record<string, number>;
  inflight: InflightBatch | null;
  /** All 76 were accepted: the answers themselves are then dropped from storage. */
  submitted: boolean;
}

export interface OutboxListener {
  /** A batch was accepted; `assessment` is the server's answer. */
  accepted(assessment: AssessmentState): void;
  /** The batch that completed the 76 was accepted (called once). */
  submitted(assessment: AssessmentState): void;
  /** A batch failed; with `retrying` false, sending stopped and the answers stay in the outbox. */
  failed(error: ApiError, retrying: boolean): void;
}

export interface OutboxOptions {
  storage: StorageLike;
  assessmentId: string;
  batchSize: number;
  submit: (idempotencyKey: string, responses: Answer[], keepalive: boolean) => Promise<Result<AssessmentState>>;
  newKey: () => string;
  timers: Timers;
  random?: () => number;
  listener: OutboxListener;
}

export const storageKey = (assessmentId: string) => `nature-assessment:${assessmentId}`;

export class Outbox {
  private readonly options: OutboxOptions;
  private readonly key: string;
  private state: OutboxState;
  /** Items the server lacks, as of its last answer; null until it has told us. */
  private serverUnanswered: Set<string> | null = null;
  private savedCount = 0;
  private sending = false;
  private retryTimer: unknown = null;
  private attempt = 0;
  private halted: ApiError | null = null;
  private disposed = false;

  constructor(options: OutboxOptions) {
    this.options = options;
    this.key = storageKey(options.assessmentId);
    this.state = load(options.storage, this.key);
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

  get inflight(): InflightBatch | null {
    return this.state.inflight;
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
    const inflight = new Set(this.state.inflight?.responses.map((answer) => answer.item_id));
    for (const [itemId, value] of Object.entries(this.state.answers)) {
      if (this.serverUnanswered?.has(itemId) && !(itemId in this.state.pending) && !inflight.has(itemId)) this.state.pending[itemId] = value;
    }
    this.save();
  }

  /** Records an answer (persisted first), then sends a batch if one is due. */
  give(itemId: string, value: number): void {
    if (this.state.submitted) return;
    this.state.answers[itemId] = value;
    // Deleting first moves a changed answer to the end, so the pending set stays in answer order.
    delete this.state.pending[itemId];
    this.state.pending[itemId] = value;
    this.save();
    this.sendIfDue();
  }

  /** Resends the batch left in flight by an earlier visit; resolves after the first attempt. */
  resume(): Promise<void> {
    return this.state.inflight ? this.send(false) : Promise.resolve();
  }

  /**
   * Sends what is waiting now, whatever the batch size: on leaving the page (with keepalive, so the request
   * outlives it; a retry waiting for its backoff goes at once) and on reopening.
   */
  flush(keepalive: boolean): Promise<void> {
    if (this.disposed || this.halted || this.sending) return Promise.resolve();
    if (this.retryTimer !== null && !keepalive) return Promise.resolve();
    return this.send(keepalive);
  }

  /** Stops timers; what is persisted stays for the next visit. */
  dispose(): void {
    this.disposed = true;
    this.clearRetry();
  }

  private sendIfDue(): void {
    if (this.disposed || this.halted || this.sending || this.retryTimer !== null) return;
    const pending = this.pendingCount;
    if (pending === 0) return;
    if (pending >= this.options.batchSize || this.answered === TOTAL_ITEMS) void this.send(false);
  }

  private async send(keepalive: boolean): Promise<void> {
    this.clearRetry();
    const batch = this.state.inflight ?? this.takeBatch();
    if (batch === null) return;
    this.sending = true;
    const result = await this.options.submit(batch.key, batch.responses, keepalive);
    this.sending = false;
    if (this.disposed) return;
    if (result.ok) this.accept(result.value);
    else if (isRetryable(result.error)) this.scheduleRetry(result.error);
    else this.halt(result.error);
  }

  /** Moves the pending answers (at most 76) into a new in-flight batch, persisted before it is sent. */
  private takeBatch(): InflightBatch | null {
    const entries = Object.entries(this.state.pending).slice(0, TOTAL_ITEMS);
    if (entries.length === 0) return null;
    const batch = { key: this.options.newKey(), responses: entries.map(([item_id, value]) => ({ item_id, value })) };
    for (const [itemId] of entries) delete this.state.pending[itemId];
    this.state.inflight = batch;
    this.save();
    return batch;
  }

  private accept(assessment: AssessmentState): void {
    this.attempt = 0;
    this.state.inflight = null;
    this.learn(assessment);
    const complete = !isOpen(assessment.status) && assessment.responses_received >= TOTAL_ITEMS;
    if (complete && !this.state.submitted) {
      // Everything is on the server: keep only the fact, not the person's answers.
      this.state = { answers: {}, pending: {}, inflight: null, submitted: true };
      this.save();
      this.options.listener.accepted(assessment);
      this.options.listener.submitted(assessment);
      return;
    }
    this.save();
    this.options.listener.accepted(assessment);
    this.sendIfDue();
  }

  private scheduleRetry(error: ApiError): void {
    this.attempt += 1;
    const delay = retryDelay(this.attempt, error, this.options.random ?? Math.random);
    this.retryTimer = this.options.timers.set(() => {
      this.retryTimer = null;
      void this.send(false);
    }, delay);
    // "Still running" is usually our own earlier copy of this batch (the keepalive flush of the page before a
    // reload): a quiet wait, nothing the person or the page needs to hear about.
    if (error.code !== 'idempotency_key_in_use') this.options.listener.failed(error, true);
  }

  /** A failure retrying cannot fix: the batch goes back to pending (behind newer answers) and sending stops. */
  private halt(error: ApiError): void {
    const batch = this.state.inflight;
    if (batch) {
      const pending: Record<string, number> = {};
      for (const { item_id, value } of batch.responses) pending[item_id] = value;
      this.state.pending = { ...pending, ...this.state.pending };
      this.state.inflight = null;
    }
    this.save();
    this.halted = error;
    this.options.listener.failed(error, false);
  }

  private learn(assessment: AssessmentState): void {
    this.serverUnanswered = new Set(assessment.unanswered_item_ids);
    this.savedCount = assessment.responses_received;
  }

  private clearRetry(): void {
    if (this.retryTimer === null) return;
    this.options.timers.clear(this.retryTimer);
    this.retryTimer = null;
  }

  private save(): void {
    try {
      this.options.storage.setItem(this.key, JSON.stringify(this.state));
    } catch {
      // Storage full or refused (a private window): the answers still live in memory for this visit.
    }
  }
}

function load(storage: StorageLike, key: string): OutboxState {
  const empty: OutboxState = { answers: {}, pending: {}, inflight: null, submitted: false };
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(key) ?? 'null');
  } catch {
    return empty;
  }
  if (typeof raw !== 'object' || raw === null) return empty;
  const stored = raw as Partial<OutboxState>;
  const inflight = stored.inflight;
  const responses = inflight && typeof inflight.key === 'string' && Array.isArray(inflight.responses) ? inflight.responses.filter(isAnswer) : [];
  return {
    answers: values(stored.answers),
    pending: values(stored.pending),
    inflight: inflight && responses.length > 0 ? { key: inflight.key, responses } : null,
    submitted: stored.submitted === true,
  };
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
