import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp, type TestApp } from '../support/test-app.js';

const URL_PATH = '/v1/embed/nature-assessment.js';
const built = () => readFileSync(new URL('../../packages/embed/dist/nature-assessment.js', import.meta.url), 'utf8');

describe('the <nature-assessment> module the service serves', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());
  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url: URL_PATH, headers });

  it('serves the built component as one JavaScript module, without a key, to pages of any origin', async () => {
    const response = await get({ origin: 'https://shop.example' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.body).toBe(built());
    expect(response.body).toContain('nature-assessment');
    // A module script from another origin is fetched in CORS mode: without these the page could not run it.
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('is cacheable and revalidates with its ETag', async () => {
    const response = await get();
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers.etag).toMatch(/^"[\w-]{27}"$/);
    const again = await get({ 'if-none-match': `W/${response.headers.etag as string}` });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get({ 'if-none-match': '"other"' })).statusCode).toBe(200);
    const head = await get({}, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(response.headers.etag);
  });

  it('answers other methods 405 and nearby paths 404, as problems', async () => {
    const posted = await t.app.inject({ method: 'POST', url: URL_PATH });
    expect(posted.statusCode).toBe(405);
    expect(posted.headers['content-type']).toMatch(/^application\/problem\+json/);
    const other = await t.app.inject({ method: 'GET', url: '/v1/embed/other.js' });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ code: 'not_found' });
  });
});
