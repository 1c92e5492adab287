import { describe, expect, it } from 'vitest';
import type { Answer, ApiError, AssessmentState, Result } from '../../packages/embed/src/api.js';
import { Outbox, type StorageLike, storageKey } from '../../packages/embed/src/outbox.js';
import type { AnswerTiming } from '../../packages/embed/src/timing.js';
import { items } from '../../src/scoring/item-bank.js';

const ASSESSMENT = 'asm_01TEST';
const ids = items.map((item) => item.id);

class MemoryStorage implements StorageLike {
  readonly map = new Map<string, string>();
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
  stored() {
    return JSON.parse(this.map.get(storageKey(ASSESSMENT)) ?? 'null');
  }
}

interface Call {
  key: string;
  responses: Answer[];
  /** Sent as the page goes away (every PATCH is keepalive; these have no timeout). */
  leaving: boolean;
  resolve(result: Result<AssessmentState>): void;
}

/** An outbox over fakes: each submit waits until the test settles it; timers run when the test says. */
function harness(options: { storage?: MemoryStorage; batchSize?: number; settleMs?: number } = {}) {
  const storage = options.storage ?? new MemoryStorage();
  const calls: Call[] = [];
  const timers: { callback: () => void; ms: number; cleared: boolean }[] = [];
  const events: string[] = [];
  const errors: { error: ApiError; retrying: boolean }[] = [];
  /** The countdown shown beside a reported failure: the seconds left, each second. */
  const countdown: number[] = [];
  let keys = 0;
  const outbox = new Outbox({
    storage,
    assessmentId: ASSESSMENT,
    batchSize: options.batchSize ?? 3,
    submit: (key, responses, leaving) => new Promise((resolve) => calls.push({ key, responses, leaving, resolve })),
    newKey: () => `key-${++keys}`,
    timers: {
      set: (callback, ms) => timers.push({ callback, ms, cleared: false }) - 1,
      clear: (handle) => {
        const timer = timers[handle as number];
        if (timer) timer.cleared = true;
      },
    },
    // No settling wait unless a test asks for it (the element's default is 600 ms).
    settleMs: options.settleMs ?? 0,
    random: () => 0,
    listener: {
      finished: (status) => events.push(`finished ${status}`),
      accepted: (assessment) => events.push(`accepted ${assessment.responses_received}`),
      submitted: (assessment) => events.push(`submitted ${assessment.status}`),
      failed: (error, retrying) => errors.push({ error, retrying }),
      retryingIn: (seconds) => countdown.push(seconds),
    },
  });
  /** Lets the outbox handle a settled submit (its continuation runs on the microtask queue). */
  const settle = async (call: Call | undefined, result: Result<AssessmentState>) => {
    if (!call) throw new Error('no such submit call');
    call.resolve(result);
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  const runTimer = async () => {
    const timer = timers.find((candidate) => !candidate.cleared);
    if (!timer) throw new Error('no timer pending');
    timer.cleared = true;
    timer.callback();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  /** Runs the timers one after the other (each may set the next) until none is pending; resolves with the time they took. */
  const runTimers = async () => {
    let ms = 0;
    for (let timer = timers.find((candidate) => !candidate.cleared); timer; timer = timers.find((candidate) => !candidate.cleared)) {
      ms += timer.ms;
      await runTimer();
    }
    return ms;
  };
  return { outbox, storage, calls, timers, events, errors, countdown, settle, runTimer, runTimers };
}

/** The assessment as the server shows it once it holds `answered` (item ids). */
function serverState(answered: Iterable<string>, status = 'in_progress'): AssessmentState {
  const have = new Set(answered);
  return {
    id: ASSESSMENT,
    status,
    responses_received: have.size,
    unanswered_item_ids: ids.filter((id) => !have.has(id)),
    result_visible_to_subject: false,
  };
}

/** A PATCH accepted, the server then holding `answered`. */
const ok = (answered: Iterable<string>, status = 'in_progress'): Result<AssessmentState> => ({
  ok: true,
  value: serverState(answered, status),
});

function problem(status: number, code: string, retryAfterMs: number | null = null): Result<AssessmentState> {
  return { ok: false, error: { code, status, title: code, detail: `detail of ${code}`, request_id: 'req_1', retryAfterMs } };
}

const networkFailure: Result<AssessmentState> = {
  ok: false,
  error: { code: 'network_error', status: null, title: 'Network error', detail: 'unreachable', request_id: null, retryAfterMs: null },
};

describe('the embed outbox', () => {
  it('persists each answer before sending, and sends a batch when batch-size answers are waiting', () => {
    const { outbox, storage, calls } = harness({ batchSize: 3 });
    outbox.give('mn_001', 4);
    expect(storage.stored().answers).toEqual({ mn_001: 4 });
    expect(storage.stored().pending).toEqual({ mn_001: 4 });
    outbox.give('mn_002', 2);
    expect(calls).toHaveLength(0);
    outbox.give('mn_003', 5);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ key: 'key-1', leaving: false });
    expect(calls[0]?.responses).toEqual([
      { item_id: 'mn_001', value: 4 },
      { item_id: 'mn_002', value: 2 },
      { item_id: 'mn_003', value: 5 },
    ]);
    // The batch is in storage, with its key, before the request goes out.
    expect(storage.stored().inflight).toEqual([{ key: 'key-1', responses: calls[0]?.responses }]);
    expect(storage.stored().pending).toEqual({});
  });

  it('keeps one batch in flight: answers given meanwhile wait, then go as the next batches of batch-size', async () => {
    const { outbox, calls, settle, events } = harness({ batchSize: 2 });
    outbox.give('mn_001', 1);
    outbox.give('mn_002', 2);
    outbox.give('mn_003', 3);
    outbox.give('mn_004', 4);
    outbox.give('mn_005', 5);
    expect(calls).toHaveLength(1);
    await settle(calls[0], ok(['mn_001', 'mn_002']));
    expect(events).toEqual(['accepted 2']);
    expect(outbox.saved).toBe(2);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.key).toBe('key-2');
    expect(calls[1]?.responses.map((answer) => answer.item_id)).toEqual(['mn_003', 'mn_004']);
    expect(outbox.pendingCount).toBe(1);
  });

  it('a newer answer to an item replaces the older one in the pending set', () => {
    const { outbox, storage, calls } = harness({ batchSize: 3 });
    outbox.give('mn_001', 2);
    outbox.give('mn_002', 3);
    outbox.give('mn_001', 5);
    expect(storage.stored().pending).toEqual({ mn_002: 3, mn_001: 5 });
    expect(calls).toHaveLength(0);
    expect(outbox.answered).toBe(2);
    outbox.give('mn_003', 1);
    expect(calls[0]?.responses).toEqual([
      { item_id: 'mn_002', value: 3 },
      { item_id: 'mn_001', value: 5 },
      { item_id: 'mn_003', value: 1 },
    ]);
  });

  it('sends the last answers as soon as the 76th is given, whatever the batch size', async () => {
    const { outbox, calls, settle, events, storage } = harness({ batchSize: 10 });
    outbox.reconcile(serverState(ids.slice(0, 73)));
    expect(outbox.answered).toBe(73);
    outbox.give('mn_074', 3);
    outbox.give('mn_075', 3);
    expect(calls).toHaveLength(0);
    outbox.give('mn_076', 3);
    expect(outbox.answered).toBe(76);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.responses.map((answer) => answer.item_id)).toEqual(['mn_074', 'mn_075', 'mn_076']);
    await settle(calls[0], ok(ids, 'scoring'));
    expect(events).toEqual(['accepted 76', 'submitted scoring']);
    // Only the fact stays in storage, not the person's answers.
    expect(storage.stored()).toEqual({ answers: {}, timing: {}, pending: {}, inflight: [], submitted: true });
  });

  it.each([
    ['a network failure', networkFailure, 1000, true],
    ['a 503', problem(503, 'internal_error'), 1000, true],
    ['a 429 (after its Retry-After)', problem(429, 'rate_limited', 7000), 7000, true],
    // Usually the keepalive copy of the same batch sent by the page before a reload: waited for without a word.
    ['a 409 idempotency_key_in_use (after its Retry-After, quietly)', problem(409, 'idempotency_key_in_use', 2000), 2000, false],
  ])('retries %s with the same Idempotency-Key and body', async (_name, failure, delay, reported) => {
    const { outbox, calls, settle, runTimers, errors, countdown } = harness({ batchSize: 2 });
    outbox.give('mn_001', 1);
    outbox.give('mn_002', 2);
    await settle(calls[0], failure);
    expect(errors).toEqual(reported ? [{ error: (failure as { error: ApiError }).error, retrying: true }] : []);
    expect(calls).toHaveLength(1);
    expect(await runTimers()).toBe(delay);
    // The countdown a person sees runs on the retry's own timers: each whole second, then 0 as the retry goes.
    const seconds = delay / 1000;
    expect(countdown).toEqual(reported ? [...Array.from({ length: seconds }, (_, i) => seconds - i), 0] : []);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.key).toBe(calls[0]?.key);
    expect(calls[1]?.responses).toEqual(calls[0]?.responses);
  });

  it('waits longer after each failed attempt (the sequence itself: embed-api.test.ts), and starts over after a success', async () => {
    const { outbox, calls, settle, runTimers } = harness({ batchSize: 1 });
    outbox.give('mn_001', 1);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await settle(calls[attempt], networkFailure);
      waits.push(await runTimers());
    }
    const [first, second, third] = waits;
    expect(second).toBeGreaterThan(first!);
    expect(third).toBeGreaterThan(second!);
    expect(new Set(calls.map((call) => call.key))).toEqual(new Set(['key-1']));
    await settle(calls[3], ok(['mn_001']));
    outbox.give('mn_002', 2);
    await settle(calls[4], networkFailure);
    expect(await runTimers()).toBe(first);
  });

  it('does not send new answers while a retry waits, and sends them after it succeeds', async () => {
    const { outbox, calls, settle, runTimer } = harness({ batchSize: 1 });
    outbox.give('mn_001', 1);
    await settle(calls[0], networkFailure);
    outbox.give('mn_002', 2);
    expect(calls).toHaveLength(1);
    await runTimer();
    await settle(calls[1], ok(['mn_001']));
    expect(calls).toHaveLength(3);
    expect(calls[2]?.responses).toEqual([{ item_id: 'mn_002', value: 2 }]);
  });

  it.each([
    [401, 'unauthenticated'],
    [403, 'insufficient_scope'],
    [404, 'not_found'],
    [409, 'assessment_not_open'],
    [422, 'validation_failed'],
  ])('stops on %i %s, keeping the answers in the outbox', async (status, code) => {
    const { outbox, calls, settle, timers, errors, storage } = harness({ batchSize: 2 });
    outbox.give('mn_001', 1);
    outbox.give('mn_002', 2);
    outbox.give('mn_003', 3);
    await settle(calls[0], problem(status, code));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ error: { code, status }, retrying: false });
    expect(timers).toHaveLength(0);
    // The refused batch is pending again, ahead of the answer given after it.
    expect(storage.stored().inflight).toEqual([]);
    expect(Object.keys(storage.stored().pending)).toEqual(['mn_001', 'mn_002', 'mn_003']);
    outbox.give('mn_004', 4);
    await outbox.flush(true);
    expect(calls).toHaveLength(1);
    expect(storage.stored().answers).toEqual({ mn_001: 1, mn_002: 2, mn_003: 3, mn_004: 4 });
  });

  it('a reload resends the persisted in-flight batch first, with the same key and body', async () => {
    const storage = new MemoryStorage();
    const first = harness({ storage, batchSize: 2 });
    first.outbox.give('mn_001', 1);
    first.outbox.give('mn_002', 2);
    first.outbox.give('mn_003', 3);
    // The page goes away before the answer comes back.
    first.outbox.dispose();

    const second = harness({ storage, batchSize: 2 });
    expect(second.outbox.inflight).toEqual([{ key: 'key-1', responses: first.calls[0]?.responses }]);
    expect(second.outbox.pendingCount).toBe(1);
    const resumed = second.outbox.resume();
    expect(second.calls).toHaveLength(1);
    expect(second.calls[0]?.key).toBe('key-1');
    expect(second.calls[0]?.responses).toEqual(first.calls[0]?.responses);
    second.calls[0]?.resolve(ok(['mn_001', 'mn_002']));
    await resumed;
    expect(second.outbox.inflight).toEqual([]);
  });

  it('a reload remembers the values given on this browser and counts them as answered', () => {
    const storage = new MemoryStorage();
    const first = harness({ storage, batchSize: 10 });
    first.outbox.give('mn_001', 4);
    first.outbox.give('mn_005', 2);
    const second = harness({ storage, batchSize: 10 });
    expect(second.outbox.valueOf('mn_001')).toBe(4);
    expect(second.outbox.valueOf('mn_005')).toBe(2);
    expect(second.outbox.valueOf('mn_002')).toBeUndefined();
    expect(second.outbox.answered).toBe(2);
    expect(second.outbox.pendingCount).toBe(2);
  });

  it('on reopening, answers the server lacks are queued again and counted with those given elsewhere', async () => {
    const storage = new MemoryStorage();
    // An earlier visit: mn_001..mn_002 accepted, mn_003 refused (back in pending), then pending lost.
    storage.setItem(
      storageKey(ASSESSMENT),
      JSON.stringify({ answers: { mn_001: 1, mn_002: 2, mn_003: 3 }, pending: {}, inflight: [], submitted: false }),
    );
    const { outbox, calls } = harness({ storage, batchSize: 10 });
    // The server has mn_001, mn_002 and mn_010 (answered on another device).
    outbox.reconcile(serverState(['mn_001', 'mn_002', 'mn_010']));
    expect(outbox.answered).toBe(4);
    expect(outbox.saved).toBe(3);
    expect(outbox.isAnswered('mn_010')).toBe(true);
    expect(outbox.valueOf('mn_010')).toBeUndefined();
    expect(outbox.isAnswered('mn_011')).toBe(false);
    expect(outbox.pendingCount).toBe(1);
    void outbox.flush(false);
    expect(calls[0]?.responses).toEqual([{ item_id: 'mn_003', value: 3 }]);
  });

  it('does not queue again an answer that is already in flight', () => {
    const storage = new MemoryStorage();
    storage.setItem(
      storageKey(ASSESSMENT),
      JSON.stringify({
        answers: { mn_001: 1 },
        pending: {},
        inflight: [{ key: 'k', responses: [{ item_id: 'mn_001', value: 1 }] }],
        submitted: false,
      }),
    );
    const { outbox } = harness({ storage });
    outbox.reconcile(serverState([]));
    expect(outbox.pendingCount).toBe(0);
  });

  it('hiding the page keeps waiting out a Retry-After (the answers stay stored); pagehide sends at once', async () => {
    const { outbox, calls, settle, timers, storage, countdown } = harness({ batchSize: 1 });
    outbox.give('mn_001', 1);
    await settle(calls[0], problem(429, 'rate_limited', 7000));
    outbox.give('mn_002', 2);
    await outbox.hide();
    expect(calls).toHaveLength(1);
    // The wait's first second still runs.
    expect(timers.map((timer) => [timer.ms, timer.cleared])).toEqual([[1000, false]]);
    expect(countdown).toEqual([7]);
    expect(storage.stored().pending).toEqual({ mn_002: 2 });
    // The page really goes: the stored batch (same key) and the pending answer leave now.
    void outbox.flush(true);
    expect(timers[0]?.cleared).toBe(true);
    expect(calls.slice(1).map((call) => [call.key, call.leaving])).toEqual([
      ['key-1', true],
      ['key-2', true],
    ]);
  });

  it('hiding the page during a backoff without Retry-After sends at once, as leaving', async () => {
    const { outbox, calls, settle, timers } = harness({ batchSize: 1 });
    outbox.give('mn_001', 1);
    await settle(calls[0], networkFailure);
    void outbox.hide();
    expect(timers[0]?.cleared).toBe(true);
    expect(calls[1]).toMatchObject({ key: 'key-1', leaving: true });
  });

  it('on leaving the page, sends what waits with keepalive, even below batch-size or during a backoff', async () => {
    const { outbox, calls, settle, timers } = harness({ batchSize: 10 });
    outbox.give('mn_001', 1);
    void outbox.flush(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.leaving).toBe(true);
    await settle(calls[0], networkFailure);
    expect(timers).toHaveLength(1);
    void outbox.flush(true);
    expect(timers[0]?.cleared).toBe(true);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ key: calls[0]?.key, responses: calls[0]?.responses, leaving: true });
  });

  it('reports the submission once, and a reopened outbox knows it is done', async () => {
    const storage = new MemoryStorage();
    const { outbox, calls, settle, events } = harness({ storage, batchSize: 76 });
    for (const id of ids) outbox.give(id, 3);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.responses).toHaveLength(76);
    await settle(calls[0], ok(ids, 'completed'));
    outbox.give('mn_001', 5);
    expect(events).toEqual(['accepted 76', 'submitted completed']);
    expect(calls).toHaveLength(1);
    const reopened = harness({ storage });
    expect(reopened.outbox.submitted).toBe(true);
    expect(reopened.outbox.answered).toBe(76);
  });

  it('ignores stored state it cannot read instead of failing', () => {
    const storage = new MemoryStorage();
    storage.setItem(storageKey(ASSESSMENT), '{not json');
    expect(harness({ storage }).outbox.answered).toBe(0);
    storage.setItem(storageKey(ASSESSMENT), JSON.stringify({ answers: { mn_001: 'x', mn_002: 4 }, inflight: [{ key: 7 }] }));
    const { outbox } = harness({ storage });
    expect(outbox.answered).toBe(1);
    expect(outbox.inflight).toEqual([]);
  });
  it('leaving while a batch is in flight sends the pending answers as a second batch, persisted first', async () => {
    const { outbox, calls, storage, settle, events } = harness({ batchSize: 10 });
    for (const id of ids.slice(0, 10)) outbox.give(id, 3);
    expect(calls).toHaveLength(1);
    outbox.give('mn_011', 1);
    outbox.give('mn_012', 2);
    expect(calls).toHaveLength(1);
    void outbox.flush(true);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({
      key: 'key-2',
      leaving: true,
      responses: [
        { item_id: 'mn_011', value: 1 },
        { item_id: 'mn_012', value: 2 },
      ],
    });
    // Both batches are stored, in order, before their requests went out.
    expect(storage.stored().inflight.map((batch: { key: string }) => batch.key)).toEqual(['key-1', 'key-2']);
    expect(storage.stored().pending).toEqual({});
    // They may be answered in either order; the server's larger count is the newer view.
    await settle(calls[1], ok([...ids.slice(0, 10), 'mn_011', 'mn_012']));
    await settle(calls[0], ok(ids.slice(0, 10)));
    expect(outbox.saved).toBe(12);
    expect(outbox.inflight).toEqual([]);
    expect(events).toEqual(['accepted 12', 'accepted 10']);
    expect(calls).toHaveLength(2);
  });

  it('leaving: an item changed while its older value is in flight stays pending, out of the second batch', async () => {
    const { outbox, calls, storage } = harness({ batchSize: 10 });
    for (const id of ids.slice(0, 10)) outbox.give(id, 3);
    outbox.give('mn_011', 1);
    outbox.give('mn_005', 5); // mn_005 = 3 is in the batch in flight
    void outbox.flush(true);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.responses).toEqual([{ item_id: 'mn_011', value: 1 }]);
    expect(storage.stored().pending).toEqual({ mn_005: 5 });
    expect(storage.stored().inflight).toHaveLength(2);
    // Next visit: both batches go again one after the other, in order, then the pending answer.
    const next = harness({ storage, batchSize: 10 });
    void next.outbox.resume();
    expect(next.calls.map((call) => call.key)).toEqual(['key-1']);
    await next.settle(next.calls[0], ok(ids.slice(0, 10)));
    expect(next.calls.map((call) => call.key)).toEqual(['key-1', 'key-2']);
    expect(next.calls[1]?.responses).toEqual([{ item_id: 'mn_011', value: 1 }]);
    await next.settle(next.calls[1], ok([...ids.slice(0, 10), 'mn_011']));
    void next.outbox.flush(false);
    expect(next.calls[2]?.responses).toEqual([{ item_id: 'mn_005', value: 5 }]);
  });

  it('a due batch waits until the answers settle (no answer for 600 ms); the 76th and leaving go at once', async () => {
    const { outbox, calls, timers, runTimer, settle } = harness({ batchSize: 3, settleMs: 600 });
    outbox.give('mn_001', 1);
    outbox.give('mn_002', 1);
    outbox.give('mn_003', 1);
    // Arrowing through mn_003's options: each press is an answer, and each restarts the wait.
    outbox.give('mn_003', 2);
    outbox.give('mn_003', 4);
    expect(calls).toHaveLength(0);
    expect(timers.filter((timer) => !timer.cleared).map((timer) => timer.ms)).toEqual([600]);
    await runTimer();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.responses).toEqual([
      { item_id: 'mn_001', value: 1 },
      { item_id: 'mn_002', value: 1 },
      { item_id: 'mn_003', value: 4 },
    ]);
    await settle(calls[0], ok(['mn_001', 'mn_002', 'mn_003']));
    // Leaving does not wait.
    outbox.give('mn_004', 1);
    void outbox.flush(true);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ leaving: true, responses: [{ item_id: 'mn_004', value: 1 }] });
    await settle(calls[1], ok(['mn_001', 'mn_002', 'mn_003', 'mn_004']));
    // The 76th does not wait either.
    outbox.reconcile(serverState(ids.slice(0, 75)));
    outbox.give('mn_076', 2);
    expect(calls).toHaveLength(3);
    expect(calls[2]?.responses).toEqual([{ item_id: 'mn_076', value: 2 }]);
  });

  it('a batch accepted while answers are still coming waits for them to settle before the next', async () => {
    const { outbox, calls, settle, runTimer } = harness({ batchSize: 2, settleMs: 600 });
    outbox.give('mn_001', 1);
    outbox.give('mn_002', 1);
    await runTimer();
    expect(calls).toHaveLength(1);
    outbox.give('mn_003', 1);
    outbox.give('mn_004', 1);
    await settle(calls[0], ok(['mn_001', 'mn_002']));
    expect(calls).toHaveLength(1);
    await runTimer();
    expect(calls[1]?.responses.map((answer) => answer.item_id)).toEqual(['mn_003', 'mn_004']);
  });

  it("two tabs on the same assessment keep each other's stored answers; per item the one saved last wins", async () => {
    const storage = new MemoryStorage();
    const a = harness({ storage, batchSize: 10 });
    const b = harness({ storage, batchSize: 10 });
    a.outbox.give('mn_001', 1);
    b.outbox.give('mn_002', 2);
    a.outbox.give('mn_003', 3);
    expect(storage.stored().answers).toEqual({ mn_001: 1, mn_002: 2, mn_003: 3 });
    expect(storage.stored().pending).toEqual({ mn_002: 2, mn_001: 1, mn_003: 3 });
    // B changes A's answer: B's value is the newer one.
    b.outbox.give('mn_001', 5);
    a.outbox.give('mn_004', 4);
    expect(storage.stored().answers).toMatchObject({ mn_001: 5 });
    // A sends its own pending answers; what B keeps pending stays stored, and A's sent ones are not brought back.
    void a.outbox.flush(false);
    expect(a.calls[0]?.responses).toEqual([
      { item_id: 'mn_001', value: 1 },
      { item_id: 'mn_003', value: 3 },
      { item_id: 'mn_004', value: 4 },
    ]);
    await a.settle(a.calls[0], ok(['mn_001', 'mn_003', 'mn_004']));
    b.outbox.give('mn_005', 5);
    expect(storage.stored().pending).toEqual({ mn_002: 2, mn_001: 5, mn_005: 5 });
    expect(storage.stored().inflight).toEqual([]);
    expect(storage.stored().answers).toEqual({ mn_001: 5, mn_002: 2, mn_003: 3, mn_004: 4, mn_005: 5 });
    // A third visit sees every answer given in either tab.
    const later = harness({ storage });
    expect(later.outbox.answered).toBe(5);
  });

  it("a tab that sent an item keeps another tab's later, unsent change to it in storage", async () => {
    const storage = new MemoryStorage();
    const a = harness({ storage, batchSize: 1 });
    const b = harness({ storage, batchSize: 10 });
    a.outbox.give('mn_001', 1);
    await a.settle(a.calls[0], ok(['mn_001']));
    b.outbox.give('mn_001', 5);
    expect(storage.stored().pending).toEqual({ mn_001: 5 });
    a.outbox.give('mn_002', 2);
    expect(storage.stored().pending).toEqual({ mn_001: 5 });
    expect(storage.stored().answers).toEqual({ mn_001: 5, mn_002: 2 });
  });

  it('a tab keeps the batch another tab has in flight in storage', () => {
    const storage = new MemoryStorage();
    const a = harness({ storage, batchSize: 2 });
    const b = harness({ storage, batchSize: 10 });
    a.outbox.give('mn_001', 1);
    a.outbox.give('mn_002', 2);
    expect(a.calls).toHaveLength(1);
    b.outbox.give('mn_010', 3);
    expect(storage.stored().inflight).toEqual([{ key: 'key-1', responses: a.calls[0]?.responses }]);
    expect(b.calls).toHaveLength(0);
  });

  it('a resent batch refused because the assessment is already completed: done, nothing kept, no error', async () => {
    const storage = new MemoryStorage();
    storage.setItem(
      storageKey(ASSESSMENT),
      JSON.stringify({
        answers: { mn_001: 1 },
        pending: {},
        inflight: [{ key: 'k', responses: [{ item_id: 'mn_001', value: 1 }] }],
        submitted: false,
      }),
    );
    const { outbox, calls, settle, events, errors } = harness({ storage });
    void outbox.resume();
    const closed = problem(401, 'unauthenticated');
    if (!closed.ok) closed.error.assessment_status = 'completed';
    await settle(calls[0], closed);
    expect(events).toEqual(['finished completed']);
    expect(errors).toEqual([]);
    expect(outbox.submitted).toBe(true);
    expect(storage.stored()).toEqual({ answers: {}, timing: {}, pending: {}, inflight: [], submitted: true });
  });

  it.each([
    ['after the stored batch was resent (as the element opens)', true],
    ['by itself', false],
  ])(
    'on reopening, a flush %s sends the stored batch, then the pending answers below batch-size once it is accepted',
    async (_when, resumed) => {
      const storage = new MemoryStorage();
      storage.setItem(
        storageKey(ASSESSMENT),
        JSON.stringify({
          answers: { mn_001: 1, mn_002: 2 },
          pending: { mn_002: 2 },
          inflight: [{ key: 'k', responses: [{ item_id: 'mn_001', value: 1 }] }],
          submitted: false,
        }),
      );
      const { outbox, calls, settle, storage: stored } = harness({ storage, batchSize: 10 });
      if (resumed) void outbox.resume();
      void outbox.flush(false);
      expect(calls.map((call) => call.key)).toEqual(['k']);
      await settle(calls[0], ok(['mn_001']));
      expect(calls[1]).toMatchObject({ key: 'key-1', leaving: false, responses: [{ item_id: 'mn_002', value: 2 }] });
      await settle(calls[1], ok(['mn_001', 'mn_002']));
      expect(stored.stored().pending).toEqual({});
      // The flush is over: the next answer waits for batch-size again.
      outbox.give('mn_003', 3);
      expect(calls).toHaveLength(2);
    },
  );
});

/** The timing the element takes as the person chooses an answer (timing.ts): `ms` to answer, at second `s`. */
const timed = (ms: number, s = 0): AnswerTiming => ({
  answered_at: `2026-03-01T10:00:${String(s).padStart(2, '0')}.000Z`,
  response_time_ms: ms,
});

describe('the timing the embed outbox sends with each answer', () => {
  it('sends each answer with the timing it was given, persisted beside it; a changed answer with its own', async () => {
    const { outbox, calls, storage, settle } = harness({ batchSize: 2 });
    outbox.give('mn_001', 4, timed(2_100, 2));
    expect(storage.stored().timing).toEqual({ mn_001: { value: 4, ...timed(2_100, 2) } });
    outbox.give('mn_001', 5, timed(3_400, 6));
    outbox.give('mn_002', 2, timed(1_500, 8));
    expect(calls[0]?.responses).toEqual([
      { item_id: 'mn_001', value: 5, ...timed(3_400, 6) },
      { item_id: 'mn_002', value: 2, ...timed(1_500, 8) },
    ]);
    expect(storage.stored().inflight).toEqual([{ key: 'key-1', responses: calls[0]?.responses }]);
    await settle(calls[0], ok(['mn_001', 'mn_002']));
    // Changed after it was sent: the new value goes with the new timing.
    outbox.give('mn_002', 3, timed(900, 30));
    outbox.give('mn_003', 1, timed(4_000, 34));
    expect(calls[1]?.responses).toEqual([
      { item_id: 'mn_002', value: 3, ...timed(900, 30) },
      { item_id: 'mn_003', value: 1, ...timed(4_000, 34) },
    ]);
  });

  it('a retry and a reload resend a batch with the same timing: the same key and body', async () => {
    const storage = new MemoryStorage();
    const first = harness({ storage, batchSize: 2 });
    first.outbox.give('mn_001', 1, timed(1_200, 1));
    first.outbox.give('mn_002', 2, timed(2_300, 4));
    await first.settle(first.calls[0], networkFailure);
    await first.runTimers();
    expect(first.calls[1]).toMatchObject({ key: 'key-1', responses: first.calls[0]?.responses });
    first.outbox.dispose();
    const second = harness({ storage, batchSize: 2 });
    void second.outbox.resume();
    expect(second.calls[0]).toMatchObject({ key: 'key-1', responses: first.calls[0]?.responses });
    expect(second.calls[0]?.responses[1]).toEqual({ item_id: 'mn_002', value: 2, ...timed(2_300, 4) });
  });

  it('a refused batch goes back to pending with its timing, and a reopened page resends an answer the server lacks with its timing', async () => {
    const storage = new MemoryStorage();
    const first = harness({ storage, batchSize: 2 });
    first.outbox.give('mn_001', 1, timed(1_200, 1));
    first.outbox.give('mn_002', 2, timed(2_300, 4));
    await first.settle(first.calls[0], problem(422, 'validation_failed'));
    expect(storage.stored().timing).toEqual({ mn_001: { value: 1, ...timed(1_200, 1) }, mn_002: { value: 2, ...timed(2_300, 4) } });
    first.outbox.dispose();
    const second = harness({ storage, batchSize: 10 });
    second.outbox.reconcile(serverState([]));
    void second.outbox.flush(false);
    expect(second.calls[0]?.responses).toEqual([
      { item_id: 'mn_001', value: 1, ...timed(1_200, 1) },
      { item_id: 'mn_002', value: 2, ...timed(2_300, 4) },
    ]);
  });

  it('sends an answer without timing when it has none for that value: stored by an older version, or changed in another tab by one', () => {
    const storage = new MemoryStorage();
    storage.setItem(
      storageKey(ASSESSMENT),
      JSON.stringify({
        answers: { mn_001: 1, mn_002: 2, mn_003: 3 },
        // mn_002's timing is for a value it no longer has; mn_003's is not a timing.
        timing: { mn_002: { value: 5, ...timed(700) }, mn_003: { value: 3, answered_at: 12, response_time_ms: -1 } },
        pending: { mn_001: 1, mn_002: 2, mn_003: 3 },
        inflight: [{ key: 'old', responses: [{ item_id: 'mn_004', value: 4 }] }],
        submitted: false,
      }),
    );
    const { outbox, calls } = harness({ storage, batchSize: 10 });
    void outbox.resume();
    expect(calls[0]?.responses).toEqual([{ item_id: 'mn_004', value: 4 }]);
    outbox.give('mn_005', 5);
    void outbox.flush(true);
    expect(calls[1]?.responses).toEqual([
      { item_id: 'mn_001', value: 1 },
      { item_id: 'mn_002', value: 2 },
      { item_id: 'mn_003', value: 3 },
      { item_id: 'mn_005', value: 5 },
    ]);
  });

  it('keeps no timing once the 76 are in, as it keeps no answers', async () => {
    const { outbox, calls, storage, settle } = harness({ batchSize: 76 });
    for (const [i, id] of ids.entries()) outbox.give(id, 3, timed(1_000 + i, i % 60));
    expect(calls[0]?.responses[75]).toEqual({ item_id: ids[75], value: 3, ...timed(1_075, 15) });
    await settle(calls[0], ok(ids, 'scoring'));
    expect(storage.stored()).toEqual({ answers: {}, timing: {}, pending: {}, inflight: [], submitted: true });
  });
});
