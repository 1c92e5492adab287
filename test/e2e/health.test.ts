import { describe, expect, it } from 'vitest';
import { openTestApp } from '../support/test-app.js';

describe('health', () => {
  it('is live and ready without a key when every backend answers', async () => {
    const t = await openTestApp();
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: {
        keys: 'ok',
        'test.event_store': 'ok',
        'test.read_models': 'ok',
        'test.bus': 'ok',
        'live.event_store': 'ok',
        'live.read_models': 'ok',
        'live.bus': 'ok',
      },
    });
    await t.close();
  });

  it('answers 503 naming the backend that does not answer, without its error', async () => {
    const t = await openTestApp();
    await t.envs.live.readModels.close();
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'unavailable', checks: { 'live.read_models': 'unavailable', 'test.read_models': 'ok' } });
    expect(ready.body).not.toMatch(/database|sqlite|connection/i);
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    await t.app.close();
  });
});
