import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/domain/instant.js';
import { meterUsage, parseUsageRange, UsageMeter, type UsageRange } from '../../src/domain/usage.js';
import type { EventMetadata, ReadAllOptions, RecordedEvent } from '../../src/ports/event-store.js';

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

function meter(events: RecordedEvent[], range: UsageRange = november) {
  const usage = new UsageMeter(range);
  for (const event of events) usage.add(event);
  return usage;
}

describe('usage meter', () => {
  it('bills each completion to the key of the batch that completed it, not to earlier batches or the starter', () => {
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
    expect(meter(log.events).rows()).toEqual([
      { key_id: 'key_alice', period: '2026-11-20', completed_assessments: 1 },
      { key_id: 'key_bob', period: '2026-11-20', completed_assessments: 2 },
    ]);
  });

  it('keeps streams apart when their batches interleave in the log', () => {
    const log = logOf()
      .batch('asm_a', 'key_alice')
      .batch('asm_b', 'key_bob')
      .completed('asm_a', '2026-11-05T00:00:00.000Z')
      .batch('asm_c', 'key_alice')
      .completed('asm_b', '2026-11-05T00:00:00.000Z')
      .completed('asm_c', '2026-11-05T00:00:00.000Z');
    expect(meter(log.events).rows()).toEqual([
      { key_id: 'key_alice', period: '2026-11-05', completed_assessments: 2 },
      { key_id: 'key_bob', period: '2026-11-05', completed_assessments: 1 },
    ]);
  });

  it('buckets by UTC day at the midnight boundary', () => {
    const log = logOf()
      .batch('asm_a', 'key_alice')
      .completed('asm_a', '2026-11-21T23:59:59.999Z')
      .batch('asm_b', 'key_alice')
      .completed('asm_b', '2026-11-22T00:00:00.000Z')
      .batch('asm_c', 'key_alice')
      .completed('asm_c', '2026-11-22T00:00:00.001Z');
    expect(meter(log.events).rows()).toEqual([
      { key_id: 'key_alice', period: '2026-11-21', completed_assessments: 1 },
      { key_id: 'key_alice', period: '2026-11-22', completed_assessments: 2 },
    ]);
  });

  it('buckets by UTC month at the month boundary, sorted by period then key', () => {
    const log = logOf()
      .batch('asm_a', 'key_zed')
      .completed('asm_a', '2026-11-30T23:59:59.999Z')
      .batch('asm_b', 'key_zed')
      .completed('asm_b', '2026-12-01T00:00:00.000Z')
      .batch('asm_c', 'key_amy')
      .completed('asm_c', '2026-12-31T12:00:00.000Z')
      .batch('asm_d', 'key_amy')
      .completed('asm_d', '2026-10-31T23:59:59.999Z');
    const usage = meter(log.events, { from: new Date('2026-10-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z'), granularity: 'month' });
    expect(usage.rows()).toEqual([
      { key_id: 'key_amy', period: '2026-10', completed_assessments: 1 },
      { key_id: 'key_zed', period: '2026-11', completed_assessments: 1 },
      { key_id: 'key_amy', period: '2026-12', completed_assessments: 1 },
      { key_id: 'key_zed', period: '2026-12', completed_assessments: 1 },
    ]);
  });

  it('counts from inclusive and to exclusive, by completed_at, whenever the batches were sent', () => {
    const log = logOf()
      .batch('asm_early', 'key_alice')
      .completed('asm_early', '2026-10-31T23:59:59.999Z')
      .batch('asm_first', 'key_alice', '2026-10-31T23:59:59.000Z') // sent before the range, completed inside it
      .completed('asm_first', '2026-11-01T00:00:00.000Z')
      .batch('asm_last', 'key_alice')
      .completed('asm_last', '2026-11-30T23:59:59.999Z')
      .batch('asm_late', 'key_alice')
      .completed('asm_late', '2026-12-01T00:00:00.000Z');
    const report = meter(log.events).report(false);
    expect(report.data).toEqual([
      { key_id: 'key_alice', period: '2026-11-01', completed_assessments: 1 },
      { key_id: 'key_alice', period: '2026-11-30', completed_assessments: 1 },
    ]);
    expect(report.total_completed_assessments).toBe(2);
  });

  it('ignores re-scoring and every other event type; an assessment is billed once', () => {
    const log = logOf()
      .started('asm_a')
      .batch('asm_a', 'key_alice')
      .completed('asm_a', '2026-11-10T00:00:00.000Z')
      .rescored('asm_a', '2026-11-11T00:00:00.000Z')
      .other('assessment-asm_a', 'AssessmentAbandoned')
      .other('subject-sub_1', 'SubjectErased')
      .other('webhook-endpoint-whe_1', 'WebhookDeliveryAttempted');
    const report = meter(log.events).report(true);
    expect(report).toEqual({
      object: 'usage',
      livemode: true,
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
      granularity: 'day',
      data: [{ key_id: 'key_alice', period: '2026-11-10', completed_assessments: 1 }],
      total_completed_assessments: 1,
    });
  });

  it('reports a completion whose batch carries no key id under key_id null, still counted', () => {
    const log = logOf().batch('asm_a', undefined).completed('asm_a', '2026-11-10T00:00:00.000Z');
    expect(meter(log.events).rows()).toEqual([{ key_id: null, period: '2026-11-10', completed_assessments: 1 }]);
  });

  it('reads the log in pages, each after the last position seen, and gives the same answer', async () => {
    const log = logOf();
    for (let i = 0; i < 1500; i++)
      log
        .batch(`asm_${i}`, i % 3 === 0 ? 'key_a' : 'key_b')
        .completed(`asm_${i}`, `2026-11-${String((i % 30) + 1).padStart(2, '0')}T12:00:00.000Z`);
    const reads: { options: ReadAllOptions; page: RecordedEvent[] }[] = [];
    const store = {
      async readAll(options: ReadAllOptions) {
        const page = log.events.filter((e) => options.after === undefined || e.position > options.after).slice(0, options.limit);
        reads.push({ options, page });
        return page;
      },
    };
    const report = await meterUsage(store, november, false);
    expect(report).toEqual(meter(log.events).report(false));
    expect(report.total_completed_assessments).toBe(1500);
    expect(report.data.filter((row) => row.key_id === 'key_a').reduce((sum, row) => sum + row.completed_assessments, 0)).toBe(500);
    // Several bounded pages, each starting after the last event of the one before; the whole log read once.
    expect(reads.length).toBeGreaterThan(1);
    expect(reads.every(({ options }) => options.limit < log.events.length)).toBe(true);
    expect(reads[0]!.options.after).toBeUndefined();
    for (let i = 1; i < reads.length; i++) expect(reads[i]!.options.after).toBe(reads[i - 1]!.page.at(-1)!.position);
    expect(reads.flatMap(({ page }) => page)).toEqual(log.events);
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
