import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

describe('rate limits', () => {
  describe('by default', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await openTestApp();
    });
    afterAll(async () => {
      await t.close();
    });

    it('allows 200 requests per 2 s window (100/s, burst 200) and says so on every answer, errors and public routes included', async () => {
      const key = (await t.mint('test', 'sk')).raw;
      const answers = [
        await t.app.inject({ url: '/v1/nature/items', headers: auth(key) }),
        await t.app.inject({ url: '/v1/nature/subjects/sub_nope', headers: auth(key) }),
        await t.app.inject({ url: '/healthz' }),
        await t.app.inject({ url: '/v1/nature/nothing' }),
      ];
      for (const answer of answers) {
        expect(answer.headers['ratelimit-policy']).toBe('"default";q=200;w=2');
        expect(answer.headers.ratelimit).toMatch(/^"default";r=\d+;t=[12]$/);
      }
      expect(answers[1]!.headers.ratelimit).toMatch(/^"default";r=198;/);
    });
  });

  describe('configured to 10 requests per 10 s', () => {
    let t: TestApp;
    beforeAll(async () => {
      // One request per second, with a burst of ten: the window (10 s) outlasts every test here.
      t = await openTestApp({ NATURE_RATE_LIMIT_PER_SECOND: '1', NATURE_RATE_LIMIT_BURST: '10' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('counts down per API key, then answers 429 rate_limited with Retry-After; other keys are unaffected', async () => {
      const key = (await t.mint('test', 'sk')).raw;
      const remaining: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const answer = await t.app.inject({ url: '/v1/nature/items', headers: auth(key) });
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['ratelimit-policy']).toBe('"default";q=10;w=10');
        remaining.push(/r=(\d+)/.exec(String(answer.headers.ratelimit))![1]!);
      }
      expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);

      const limited = await t.app.inject({ url: '/v1/nature/items', headers: auth(key) });
      const body = expectProblem(limited, 429, 'rate_limited');
      expect(body.detail).toMatch(/at most 10 per 10 s for this API key/);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(10);
      expect(limited.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
      // Writes are limited like reads, and nothing is written.
      expectProblem(
        await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(key), payload: {} }),
        429,
        'rate_limited',
      );

      for (const other of [(await t.mint('test', 'sk')).raw, (await t.mint('live', 'sk')).raw]) {
        const answer = await t.app.inject({ url: '/v1/nature/items', headers: auth(other) });
        expect(answer.statusCode).toBe(200);
        expect(answer.headers.ratelimit).toMatch(/^"default";r=9;/);
      }
    });

    it('limits a flood of bad keys per client address, without touching valid keys from that address', async () => {
      const from = { remoteAddress: '198.51.100.7' };
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        const answer = await t.app.inject({ url: '/v1/nature/subjects', headers: auth(`test_sk_${String(i).padStart(40, 'x')}`), ...from });
        statuses.push(answer.statusCode);
        if (answer.statusCode === 429) expectProblem(answer, 429, 'rate_limited');
      }
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
      const key = (await t.mint('test', 'sk')).raw;
      expect((await t.app.inject({ url: '/v1/nature/items', headers: auth(key), ...from })).statusCode).toBe(200);
      // Another address is not limited by the first one's flood.
      expect((await t.app.inject({ url: '/v1/nature/subjects', remoteAddress: '198.51.100.8' })).statusCode).toBe(401);
    });
  });
});
