import { describe, expect, it } from 'vitest';
import { type ApiError, NETWORK_MESSAGE } from '../../packages/embed/src/api.js';
import { explain, referenceText, retryText } from '../../packages/embed/src/messages.js';

const PAGE = 'https://app.example.com';

const error = (status: number | null, code: string, extra: Partial<ApiError> = {}): ApiError => ({
  code,
  status,
  title: code,
  detail: `the API's own detail of ${code}`,
  request_id: 'req_1',
  retryAfterMs: null,
  ...extra,
});

describe("the element's words for a failure", () => {
  it('for a failure it retries: what happened, without blaming anyone (the countdown goes beside it)', () => {
    expect(explain(error(null, 'network_error', { detail: NETWORK_MESSAGE, request_id: null }), PAGE)).toBe(NETWORK_MESSAGE);
    expect(explain(error(503, 'internal_error'), PAGE)).toBe('The Nature Profile API could not answer just now.');
    expect(explain(error(429, 'rate_limited'), PAGE)).toBe('The Nature Profile API is busy just now.');
    expect([5, 1, 0].map(retryText)).toEqual(['Retrying in 5 s…', 'Retrying in 1 s…', 'Retrying now…']);
  });

  it('for a failure it gives up on: what the site owner must fix, in plain words', () => {
    expect(explain(error(401, 'unauthenticated'), PAGE)).toMatch(
      /^The Nature Profile API refused this page's publishable key or client secret\. The site owner must give the page a current publishable key \(a revoked or rotated key no longer works\)/,
    );
    const origin = explain(error(403, 'insufficient_scope'), PAGE);
    expect(origin).toContain(`its publishable key may not be used on ${PAGE}.`);
    expect(origin).toContain('The site owner must give the page a publishable key that allows this origin');
    expect(explain(error(403, 'insufficient_scope', { required_scope: 'nature:read' }), PAGE)).toBe(
      'The Nature Profile API refused this page: its publishable key lacks the nature:read scope. The site owner must give the page a publishable key with that scope.',
    );
    expect(explain(error(404, 'not_found'), PAGE)).toMatch(/The site owner must check the subject-id and assessment-id/);
  });

  it('keeps the detail that is already plain: an assessment no longer open, a refused batch', () => {
    const closed = error(401, 'assessment_not_open', {
      assessment_status: 'expired',
      detail: 'This assessment is expired and no longer takes answers.',
    });
    expect(explain(closed, PAGE)).toBe('This assessment is expired and no longer takes answers.');
    expect(explain(error(422, 'validation_failed'), PAGE)).toBe("the API's own detail of validation_failed");
  });

  it('gives the site owner the code and request id to quote', () => {
    expect(referenceText('unauthenticated', 'req_1')).toBe('Error code unauthenticated, request req_1.');
    expect(referenceText('missing_attribute', null)).toBe('Error code missing_attribute.');
  });
});
