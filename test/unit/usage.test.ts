import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/domain/instant.js';
import { parseUsageRange, type UsageCountRow, type UsageRange, type UsageRow, usageSpans } from '../../src/domain/usage.js';
import type { Collections } from '../../src/ports/collections.js';
import type { DomainEvent, EventMetadata, RecordedEvent } from '../../src/ports/event-store.js';
import type { Projection } from '../../src/ports/projection.js';
import { readUsage, usageProjection } from '../../src/projections/usage.js';
import { seeded } from '../support/seeded.js';

type UsageDocument = Collections['usage'];
/** The projection as the projector holds it: handed any recorded event of its types. */
const projection: Projection<DomainEvent, UsageDocument> = usageProjection;

/** A log under construction: events get increasing positions, as a store gives them. */
function logOf() {
  const events: RecordedEvent[] = [];
  const push = (streamName: string, type: string, data: Record<string, unknown>, metadata: EventMetadata) => {
    // Personal data that the meter must never touch: reading it fails the test.
    Object.defineProperty(data, 'pii', {
      enumerable: true,
      get() {
        throw new Error(`data.pii of a ${type} was read`);
      },
    });
    events.push({
      id: `uuid-${events.length}`,
      type,
      data,
      metadata,
      streamName,
      revision: 0n,
      position: BigInt(events.length + 1),
      recordedAt: '2026-01-01T00:00:00.000Z',
    });
  };
  const log = {
    events,
    started(asm: string) {
      push(
        `assessment-${asm}`,
        'AssessmentStarted',
        { assessment_id: asm, subject_id: 'sub_1', created_at: '2026-11-01T00:00:00Z' },
        { key_id: 'key_start' },
      );
      return log;
    },
    batch(asm: string, keyId: string | undefined, at = '2026-11-20T10:00:00.000Z') {
      push(
        `assessment-${asm}`,
        'ResponsesSubmitted',
        { assessment_id: asm, submitted_at: at },
        { request_id: 'req_1', ...(keyId !== undefined && { key_id: keyId }) },
      );
      return log;
    },
    completed(asm: string, at: string) {
      push(
        `assessment-${asm}`,
        'ScoringCompleted',
        { assessment_id: asm, subject_id: 'sub_1', profile_id: `prf_${asm}`, completed_at: at },
        { causation: 'scoring' },
      );
      return log;
    },
    rescored(asm: string, at: string) {
      push(
        `assessment-${asm}`,
        'ProfileRescored',
        { assessment_id: asm, profile_id: `prf_${asm}_v2`, completed_at: at, rescored_at: at },
        { causation: 'rebuild' },
      );
      return log;
    },
    other(streamName: string, type: string) {
      push(streamName, type, { completed_at: '2026-11-20T10:00:00.000Z' }, { key_id: 'key_other' });
      return log;
    },
  };
  return log;
}

const november: UsageRange = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z'), granularity: 'day' };

/** The usage read model kept from `events`: its documents and counter rows, each event folded as the projector folds it, in log order. */
function project(events: RecordedEvent[]) {
  const docs = new Map<string, UsageDocument>();
  const counters = new Map<string, Omit<UsageCountRow, 'item'> & { counter: string }>();
  for (const event of events) {
    if (!projection.canHandle.includes(event.type)) continue;
    const id = projection.documentId(event);
    const own = docs.get(id);
    for (const { counter, period, key } of projection.counts?.(own, event) ?? []) {
      const row = counters.get(`${counter} ${period} ${key}`) ?? { counter, period, key, n: 0 };
      row.n += 1;
      counters.set(`${counter} ${period} ${key}`, row);
    }
    const doc = projection.evolve(own, event);
    if (doc === null) docs.delete(id);
    else docs.set(id, doc);
  }
  return { docs, counters: [...counters.values()] };
}

/** The report read from the read model kept from `events` (or given), with the spans each read asked for. */
async function usage(events: RecordedEvent[] | ReturnType<typeof project>, range: UsageRange = november, livemode = false) {
  const { counters } = Array.isArray(events) ? project(events) : events;
  const reads: string[] = [];
  const store = {
    async counts(_collection: string, counter: string, from: string, to: string) {
      reads.push(`${counter} ${from} ${to}`);
      return counters.filter((row) => row.counter === counter && row.period >= from && row.period < to);
    },
  };
  return { report: await readUsage(store, range, livemode), reads };
}

const rows = async (events: RecordedEvent[], range?: UsageRange) => (await usage(events, range)).report.data;

describe('usage read model', () => {
  it('bills each completion to the key of the batch that completed it, not to earlier batches or the starter', async () => {
    const log = logOf()
      .started('asm_a')
      .batch('asm_a', 'key_alice')
      .batch('asm_a', 'key_bob')
      .completed('asm_a', '2026-11-20T10:00:01.000Z')
      .started('asm_b')
      .batch('asm_b', 'key_alice')
      .batch('asm_b', 'key_alice')
      .batch('asm_b', 'key_bob')
      .completed('asm_b', '2026-11-20T11:00:00.000Z')
      .started('asm_c')
      .batch('asm_c', 'key_bob')
      .batch('asm_c', 'key_alice')
      .completed('asm_c', '2026-11-20T12:00:00.000Z');
    expect(await rows(log.events)).toEqual([
      { key_id: 'key_alice', period: '2026-11-20', completed_assessments: 1, completed_situational_assessments: 0 },
      { key_id: 'key_bob', period: '2026-11-20', completed_assessments: 2, completed_situational_assessments: 0 },
    ]);
  });

  it('keeps streams apart when their batches interleave in the log', async () => {
    const log = logOf()
      .batch('asm_a', 'key_alice')
      .batch('asm_b', 'key_bob')
      .completed('asm_a', '2026-11-05T00:00:00.000Z')
      .batch('asm_c', 'key_alice')
      .completed('asm_b', '2026-11-05T00:00:00.000Z')
      .completed('asm_c', '2026-11-05T00:00:00.000Z');
    expect(await rows(log.events)).toEqual([
      { key_id: 'key_alice', period: '2026-11-05', completed_assessments: 2, completed_situational_assessments: 0 },
      { key_id: 'key_bob', period: '2026-11-05', completed_assessments: 1, completed_situational_assessments: 0 },
    ]);
  });

  it('buckets by UTC day at the midnight boundary', async () => {
    const log = logOf()
      .batch('asm_a', 'key_alice')
      .completed('asm_a', '2026-11-21T23:59:59.999Z')
      .batch('asm_b', 'key_alice')
      .completed('asm_b', '2026-11-22T00:00:00.000Z')
      .batch('asm_c', 'key_alice')
      .completed('asm_c', '2026-11-22T00:00:00.001Z');
    expect(await rows(log.events)).toEqual([
      { key_id: 'key_alice', period: '2026-11-21', completed_assessments: 1, completed_situational_assessments: 0 },
      { key_id: 'key_alice', period: '2026-11-22', completed_assessments: 2, completed_situational_assessments: 0 },
    ]);
  });

  it('buckets by UTC month at the month boundary, sorted by period then key', async () => {
    const log = logOf()
      .batch('asm_a', 'key_zed')
      .completed('asm_a', '2026-11-30T23:59:59.999Z')
      .batch('asm_b', 'key_zed')
      .completed('asm_b', '2026-12-01T00:00:00.000Z')
      .batch('asm_c', 'key_amy')
      .completed('asm_c', '2026-12-31T12:00:00.000Z')
      .batch('asm_d', 'key_amy')
      .completed('asm_d', '2026-10-31T23:59:59.999Z');
    const range: UsageRange = { from: new Date('2026-10-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z'), granularity: 'month' };
    expect(await rows(log.events, range)).toEqual([
      { key_id: 'key_amy', period: '2026-10', completed_assessments: 1, completed_situational_assessments: 0 },
      { key_id: 'key_zed', period: '2026-11', completed_assessments: 1, completed_situational_assessments: 0 },
      { key_id: 'key_amy', period: '2026-12', completed_assessments: 1, completed_situational_assessments: 0 },
      { key_id: 'key_zed', period: '2026-12', completed_assessments: 1, completed_situational_assessments: 0 },
    ]);
  });

  it('counts from inclusive and to exclusive, by completed_at, whenever the batches were sent', async () => {
    const log = logOf()
      .batch('asm_early', 'key_alice')
      .completed('asm_early', '2026-10-31T23:59:59.999Z')
      .batch('asm_first', 'key_alice', '2026-10-31T23:59:59.000Z') // sent before the range, completed inside it
      .completed('asm_first', '2026-11-01T00:00:00.000Z')
      .batch('asm_last', 'key_alice')
      .completed('asm_last', '2026-11-30T23:59:59.999Z')
      .batch('asm_late', 'key_alice')
      .completed('asm_late', '2026-12-01T00:00:00.000Z');
    const { report } = await usage(log.events);
    expect(report.data).toEqual([
      { key_id: 'key_alice', period: '2026-11-01', completed_assessments: 1, completed_situational_assessments: 0 },
      { key_id: 'key_alice', period: '2026-11-30', completed_assessments: 1, completed_situational_assessments: 0 },
    ]);
    expect(report.total_completed_assessments).toBe(2);
  });

  it('ignores re-scoring and every other event type; an assessment is billed once', async () => {
    const log = logOf()
      .started('asm_a')
      .batch('asm_a', 'key_alice')
      .completed('asm_a', '2026-11-10T00:00:00.000Z')
      .rescored('asm_a', '2026-11-11T00:00:00.000Z')
      .other('assessment-asm_a', 'AssessmentAbandoned')
      .other('subject-sub_1', 'SubjectErased')
      .other('webhook-endpoint-whe_1', 'WebhookDeliveryAttempted');
    const { report } = await usage(log.events, november, true);
    expect(report).toEqual({
      object: 'usage',
      livemode: true,
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
      granularity: 'day',
      data: [{ key_id: 'key_alice', period: '2026-11-10', completed_assessments: 1, completed_situational_assessments: 0 }],
      total_completed_assessments: 1,
      total_completed_situational_assessments: 0,
    });
    // Only the counts remain: an assessment's document goes with its completion.
    const kept = project(log.events);
    expect([...kept.docs.keys()]).toEqual([]);
    expect(kept.counters.map(({ period, n }) => [period, n])).toEqual([
      ['2026-11', 1],
      ['2026-11-10', 1],
      ['2026-11-10T00', 1],
      ['2026-11-10T00:00', 1],
      ['2026-11-10T00:00:00.000', 1],
    ]);
  });

  it("forgets an abandoned assessment's key: only completions leave documents", () => {
    const log = logOf().started('asm_a').batch('asm_a', 'key_alice').other('assessment-asm_a', 'AssessmentAbandoned');
    expect(project(log.events)).toEqual({ docs: new Map(), counters: [] });
  });

  it('reports a completion whose batch carries no key id under key_id null, still counted', async () => {
    const log = logOf().batch('asm_a', undefined).completed('asm_a', '2026-11-10T00:00:00.000Z');
    expect(await rows(log.events)).toEqual([
      { key_id: null, period: '2026-11-10', completed_assessments: 1, completed_situational_assessments: 0 },
    ]);
  });

  it('reads one span of rows per counter, however long the log or the range: a thousand completions a day cost the same as one', async () => {
    const log = logOf();
    for (let i = 0; i < 1500; i++)
      log
        .batch(`asm_${i}`, i % 3 === 0 ? 'key_a' : 'key_b')
        .completed(`asm_${i}`, `2026-11-${String((i % 30) + 1).padStart(2, '0')}T12:00:${String(i % 60).padStart(2, '0')}.000Z`);
    const { report, reads } = await usage(log.events);
    expect(report.data).toEqual(reference(log.events, november));
    expect(report.total_completed_assessments).toBe(1500);
    expect(report.data.filter((row) => row.key_id === 'key_a').reduce((sum, row) => sum + row.completed_assessments, 0)).toBe(500);
    // November by day: its 30 days, in one read per metered item.
    expect(reads).toEqual(['day 2026-11-01 2026-12-01', 'situational_day 2026-11-01 2026-12-01']);
    // A century by month: its 1200 months, in one read per metered item.
    const century = await usage(log.events, { from: new Date('2000-01-01'), to: new Date('2100-01-01'), granularity: 'month' });
    expect(century.report.data).toEqual(reference(log.events, century.report));
    expect(century.reads).toEqual(['month 2000-01 2100-01', 'situational_month 2000-01 2100-01']);
  });

  it('gives, for any range to the millisecond, what counting every completion in it gives', async () => {
    const random = seeded(22);
    const log = logOf();
    const start = Date.parse('2026-10-30T00:00:00Z');
    const span = 5 * 24 * 60 * 60 * 1000;
    // Completions close together (several in a minute, some at the same instant) over five days across a month's end.
    for (let i = 0; i < 400; i++) {
      const at = new Date(start + Math.floor(random() ** 2 * span)).toISOString();
      log.batch(`asm_${i}`, ['key_a', 'key_b', undefined][i % 3]).completed(`asm_${i}`, i % 7 === 0 ? '2026-11-01T00:00:00.000Z' : at);
    }
    const kept = project(log.events);
    for (let i = 0; i < 300; i++) {
      const a = start - 60_000 + Math.floor(random() * (span + 120_000));
      const b = start - 60_000 + Math.floor(random() * (span + 120_000));
      if (a === b) continue;
      const range: UsageRange = {
        from: new Date(Math.min(a, b)),
        to: new Date(Math.max(a, b)),
        granularity: i % 2 === 0 ? 'day' : 'month',
      };
      expect((await usage(kept, range)).report.data, JSON.stringify(range)).toEqual(reference(log.events, range));
    }
  });
});

/**
 * What the report must say: every completion in the range counted by brute force over the log, billed to the
 * key of the last batch on its stream before it.
 */
function reference(events: RecordedEvent[], range: { from: Date | string; to: Date | string; granularity: UsageRange['granularity'] }) {
  const [from, to] = [new Date(range.from).getTime(), new Date(range.to).getTime()];
  const keys = new Map<string, string | null>();
  const counts = new Map<string, UsageRow>();
  for (const event of events) {
    if (event.type === 'ResponsesSubmitted') keys.set(event.streamName, event.metadata.key_id ?? null);
    if (event.type !== 'ScoringCompleted') continue;
    const at = Date.parse((event.data as { completed_at: string }).completed_at);
    if (at < from || at >= to) continue;
    const key_id = keys.get(event.streamName) ?? null;
    const period = new Date(at).toISOString().slice(0, range.granularity === 'day' ? 10 : 7);
    const row = counts.get(`${period} ${key_id}`) ?? { key_id, period, completed_assessments: 0, completed_situational_assessments: 0 };
    row.completed_assessments += 1;
    counts.set(`${period} ${key_id}`, row);
  }
  return [...counts.values()].sort((a, b) => a.period.localeCompare(b.period) || (a.key_id ?? '').localeCompare(b.key_id ?? ''));
}

describe('usage spans', () => {
  it('covers a range with whole months or days, then hours, minutes, and the instants at its ends', () => {
    const range = (from: string, to: string, granularity: UsageRange['granularity'] = 'day'): UsageRange => ({
      from: new Date(from),
      to: new Date(to),
      granularity,
    });
    expect(usageSpans(range('2026-11-01', '2026-11-04'))).toEqual([{ counter: 'day', from: '2026-11-01', to: '2026-11-04' }]);
    expect(usageSpans(range('2026-10-01', '2027-01-01', 'month'))).toEqual([{ counter: 'month', from: '2026-10', to: '2027-01' }]);
    expect(usageSpans(range('2026-11-22T21:58:57.500Z', '2026-11-24T01:01:02Z'))).toEqual([
      { counter: 'instant', from: '2026-11-22T21:58:57.500', to: '2026-11-22T21:59:00.000' },
      { counter: 'minute', from: '2026-11-22T21:59', to: '2026-11-22T22:00' },
      { counter: 'hour', from: '2026-11-22T22', to: '2026-11-23T00' },
      { counter: 'day', from: '2026-11-23', to: '2026-11-24' },
      { counter: 'hour', from: '2026-11-24T00', to: '2026-11-24T01' },
      { counter: 'minute', from: '2026-11-24T01:00', to: '2026-11-24T01:01' },
      { counter: 'instant', from: '2026-11-24T01:01:00.000', to: '2026-11-24T01:01:02.000' },
    ]);
    // A month by day from its start until now: its whole days, the hours of today, the minutes of this hour, the
    // instants of this minute.
    expect(usageSpans(range('2026-11-01', '2026-11-22T15:30:20.123Z'))).toEqual([
      { counter: 'day', from: '2026-11-01', to: '2026-11-22' },
      { counter: 'hour', from: '2026-11-22T00', to: '2026-11-22T15' },
      { counter: 'minute', from: '2026-11-22T15:00', to: '2026-11-22T15:30' },
      { counter: 'instant', from: '2026-11-22T15:30:00.000', to: '2026-11-22T15:30:20.123' },
    ]);
  });
});

describe('usage range', () => {
  const now = new Date('2026-11-22T15:30:00.000Z');

  it('defaults to the start of the current UTC month until now, by day', () => {
    expect(parseUsageRange({}, now)).toEqual({ range: { from: new Date('2026-11-01T00:00:00.000Z'), to: now, granularity: 'day' } });
  });

  it('reads dates as midnight UTC and timestamps as given', () => {
    expect(parseUsageRange({ from: '2026-10-01', to: '2026-11-22T10:15:30.5Z', granularity: 'month' }, now)).toEqual({
      range: { from: new Date('2026-10-01T00:00:00.000Z'), to: new Date('2026-11-22T10:15:30.500Z'), granularity: 'month' },
    });
  });

  it.each([
    '2026-02-30',
    '2026-13-01',
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:00:00',
    '2026-11-22T10:00:00+02:00',
    '22/11/2026',
    'yesterday',
    '',
    '1999-12-31',
    '2100-01-01',
    '2026-11-22T10:00:00.1234567890Z',
  ])('refuses %j', (value) => {
    expect(parseInstant(value, { dates: true })).toBeUndefined();
    expect(parseUsageRange({ from: value }, now)).toEqual({ errors: [{ field: 'from', message: expect.stringContaining('YYYY-MM-DD') }] });
  });

  it('refuses from at or after to, a bad granularity, and names every field at once', () => {
    expect(parseUsageRange({ from: '2026-11-02', to: '2026-11-02' }, now)).toEqual({
      errors: [{ field: 'to', message: expect.stringMatching(/before/) }],
    });
    expect(parseUsageRange({ from: '2026-12-01' }, now)).toEqual({ errors: [{ field: 'to', message: expect.stringMatching(/before/) }] });
    const both = parseUsageRange({ from: 'x', to: 'y', granularity: 'week' }, now);
    expect('errors' in both && both.errors.map((e) => e.field)).toEqual(['from', 'to', 'granularity']);
  });
});

describe('instants', () => {
  it('keeps a timestamp to the millisecond, dropping finer digits, and takes dates only when asked', () => {
    expect(parseInstant('2026-11-22T10:15:30.123456789Z')).toEqual(new Date('2026-11-22T10:15:30.123Z'));
    expect(parseInstant('2026-11-22T10:15:30.9Z')).toEqual(new Date('2026-11-22T10:15:30.900Z'));
    expect(parseInstant('2024-02-29T00:00:00Z')).toEqual(new Date('2024-02-29T00:00:00.000Z'));
    expect(parseInstant('2026-11-22')).toBeUndefined();
    expect(parseInstant('2026-11-22', { dates: true })).toEqual(new Date('2026-11-22T00:00:00.000Z'));
    expect(parseInstant('2025-02-29T00:00:00Z')).toBeUndefined();
    expect(parseInstant('2026-12-31T23:59:60Z')).toBeUndefined();
  });
});
