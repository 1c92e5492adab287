import { describe, expect, it } from 'vitest';
import { keptPath, outline, scrubbedProblem } from '../../src/http/request-record.js';
import { parseUtcInstant } from '../../src/support/utc-instants.js';

const words = new Set(['v1', 'nature', 'subjects', 'assessments']);
const SUB = 'sub_01M8M42V66N49ZV20FS2ZBE5XT';

describe("a request record's redaction", () => {
  it('keeps route words and service ids in a path, numbers, dates and API words in a query, and hides the rest', () => {
    const hidden: string[] = [];
    expect(keptPath(`/v1/nature/subjects/${SUB}/assessments`, words, hidden)).toBe(`/v1/nature/subjects/${SUB}/assessments`);
    expect(keptPath('/v1/nature/subjects/emp-42/x', words, hidden)).toBe('/v1/nature/subjects/‹segment›/‹segment›');
    expect(
      keptPath('/v1/nature/subjects?limit=10&from=2026-11-01&language=fr&external_subject_id=ana%40x.org&Odd%20Name=1', words, hidden),
    ).toBe('/v1/nature/subjects?limit=10&from=2026-11-01&language=fr&external_subject_id=‹external_subject_id›&‹parameter›=1');
    expect(hidden).toEqual(['emp-42', 'x', 'ana@x.org', 'Odd Name']);
    // A key pasted into a query is hidden as a value, and redacted as the logs redact it where it passes for a name.
    expect(keptPath(`/v1/nature/subjects?starting_after=test_sk_${'a'.repeat(40)}`, words, [])).toBe(
      '/v1/nature/subjects?starting_after=‹starting_after›',
    );
    expect(keptPath(`/v1/nature/subjects?test_sk_${'a'.repeat(40)}=1`, words, [])).not.toContain('a'.repeat(40));
  });

  it("outlines a body: each value that may be personal shown as its field's name, ids, booleans and nulls as sent", () => {
    const hidden: string[] = [];
    const body = {
      subject_id: SUB,
      external_subject_id: 'emp-42',
      metadata: { crm: 'C-9', 'Ana Lopez': 'x' },
      consent: { given: true, note: null },
      responses: [1, 2, 3, 4, 5].map((value) => ({ item_id: `i${value}`, value })),
    };
    expect(outline(body, 'body', hidden)).toBe(
      `{"subject_id": "${SUB}", "external_subject_id": ‹external_subject_id›, "metadata": {"crm": ‹crm›, "field": ‹field›}, ` +
        '"consent": {"given": true, "note": null}, "responses": [{"item_id": ‹item_id›, "value": ‹value›}, {"item_id": ‹item_id›, "value": ‹value›}, ' +
        '{"item_id": ‹item_id›, "value": ‹value›}, … 2 more]}',
    );
    // Values past the items shown are hidden from problems too.
    expect(hidden).toEqual(expect.arrayContaining(['emp-42', 'C-9', 'Ana Lopez', 'x', 'i1', 'i4', 'i5']));
  });

  it('scrubs every hidden value a problem quotes, as JSON text and decoded from a path, and cuts an invalid_json detail', () => {
    const problem = JSON.stringify({ code: 'not_found', detail: 'No route GET /v1/nature/ana@x.org and "emp-42".' });
    expect(scrubbedProblem(problem, ['ana%40x.org', 'emp-42', 'x'])).toBe(
      JSON.stringify({ code: 'not_found', detail: 'No route GET /v1/nature/‹redacted› and "‹redacted›".' }),
    );
    const invalid = JSON.stringify({ code: 'invalid_json', detail: 'The request body is not valid JSON: Unexpected token in "{"ana' });
    expect(JSON.parse(scrubbedProblem(invalid, []))).toEqual({ code: 'invalid_json', detail: 'The request body is not valid JSON.' });
  });
});

describe('a UTC instant as typed', () => {
  const now = new Date('2026-11-29T12:00:00.000Z');
  it('reads dates and times as UTC, and times back from now', () => {
    expect(parseUtcInstant('2026-11-29', now)).toBe(Date.parse('2026-11-29T00:00:00Z'));
    expect(parseUtcInstant('2026-11-29 10:30', now)).toBe(Date.parse('2026-11-29T10:30:00Z'));
    expect(parseUtcInstant('2026-11-29T10:30:15.250Z', now)).toBe(Date.parse('2026-11-29T10:30:15.250Z'));
    expect(parseUtcInstant('15m', now)).toBe(now.getTime() - 900_000);
    expect(parseUtcInstant('7d', now)).toBe(now.getTime() - 7 * 86_400_000);
  });
  it('reads nothing else', () => {
    for (const text of ['', 'yesterday', '2026-02-31', '2026-11-29T25:00', '2026-11-29T10:30+02:00', '15', '-5m'])
      expect(parseUtcInstant(text, now), text).toBeUndefined();
  });
});
