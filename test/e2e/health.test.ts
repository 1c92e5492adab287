import { describe, expect, it } from 'vitest';
import { addReadinessCheck } from '../../src/http/routes/health.js';
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
        'test.idempotency': 'ok',
        'test.bus': 'ok',
        'live.event_store': 'ok',
        'live.read_models': 'ok',
        'live.idempotency': 'ok',
        'live.bus': 'ok',
      },
      // One replica: it leads in both environments.
      roles: { test: 'leader', live: 'leader' },
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

  it('stays 200, "degraded", while only a bus does not answer (writes go on, webhooks wait), and 503 once a store does not either', async () => {
    const t = await openTestApp();
    Object.assign(t.envs.live.bus, { ping: () => Promise.reject(new Error('NATS connection closed')) });
    const degraded = await t.app.inject({ url: '/readyz' });
    expect(degraded.statusCode).toBe(200);
    expect(degraded.json()).toMatchObject({
      status: 'degraded',
      checks: { 'live.bus': 'unavailable', 'test.bus': 'ok', 'live.event_store': 'ok' },
    });
    expect(degraded.body).not.toMatch(/NATS connection/);
    await t.envs.test.readModels.close();
    const down = await t.app.inject({ url: '/readyz' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'unavailable', checks: { 'live.bus': 'unavailable', 'test.read_models': 'unavailable' } });
    await t.app.close();
  });

  it('answers 503 naming a check the process added (the data directory) while it fails, without its error', async () => {
    const t = await openTestApp();
    let writable = true;
    addReadinessCheck(t.app, 'data_dir', async () => {
      if (!writable) throw new Error('EROFS: read-only file system, access /srv/nature');
    });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toMatchObject({ keys: 'ok', data_dir: 'ok' });
    writable = false;
    const readOnly = await t.app.inject({ url: '/readyz' });
    expect(readOnly.statusCode).toBe(503);
    expect(readOnly.json()).toMatchObject({
      status: 'unavailable',
      checks: { data_dir: 'unavailable', keys: 'ok', 'live.event_store': 'ok' },
    });
    expect(readOnly.body).not.toMatch(/EROFS|srv/);
    await t.close();
  });
});
