import { describe, expect, it } from 'vitest';
import { type AttemptRecord, endpointHealth } from '../../src/domain/endpoint-health.js';

const now = new Date('2026-11-29T12:00:00.000Z');
const attempt = (
  hoursAgo: number,
  outcome: AttemptRecord['outcome'],
  duration_ms: number,
  status_code: number | null = 200,
): AttemptRecord => ({
  outcome,
  status_code,
  error: outcome === 'succeeded' ? null : status_code === null ? 'connection refused' : `answered ${status_code}`,
  duration_ms,
  attempted_at: new Date(now.getTime() - hoursAgo * 3_600_000).toISOString(),
});

describe('endpoint health over the last 24 hours', () => {
  it('gives the success rate, the median latency and the latest failure of the attempts in the window', () => {
    const health = endpointHealth(
      [
        attempt(1, 'succeeded', 80),
        attempt(2, 'retrying', 5000, 503),
        attempt(3, 'succeeded', 120),
        attempt(5, 'failed', 30, null),
        attempt(30, 'failed', 9, 500), // yesterday's: outside the window
        attempt(4, 'cancelled', 0, null), // sent nothing
      ],
      now,
    );
    expect(health).toEqual({
      attempts: 4,
      successRate: 0.5,
      medianMs: 100,
      lastError: { at: '2026-11-29T10:00:00.000Z', statusCode: 503, error: 'answered 503' },
    });
  });

  it('says nothing it cannot know: no attempts, no rate, no latency, no error', () => {
    expect(endpointHealth([attempt(25, 'succeeded', 50)], now)).toEqual({
      attempts: 0,
      successRate: null,
      medianMs: null,
      lastError: null,
    });
    expect(endpointHealth([attempt(1, 'succeeded', 50)], now)).toMatchObject({
      attempts: 1,
      successRate: 1,
      medianMs: 50,
      lastError: null,
    });
  });
});
