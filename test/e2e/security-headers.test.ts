import { describe, expect, it } from 'vitest';
import { auth, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('security headers (helmet)', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });

  const frameAncestors = (policy: unknown) => /(^|;)\s*frame-ancestors 'none'\s*(;|$)/.test(String(policy));

  it('sends nosniff, no framing and no referrer on every kind of answer', async () => {
    const answers = [
      await t.app.inject({ url: '/v1/nature/items', headers: auth(key) }),
      await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(key), payload: validSubject() }),
      await t.app.inject({ url: '/v1/nature/subjects/sub_nope', headers: auth(key) }),
      await t.app.inject({ url: '/v1/nowhere' }),
      await t.app.inject({ url: '/healthz' }),
      await t.app.inject({ url: '/v1/openapi.json' }),
      await t.app.inject({ url: '/v1/embed/nature-assessment.js' }),
      await t.app.inject({ url: '/docs' }),
      await t.app.inject({ url: '/v1/docs/' }),
    ];
    for (const answer of answers) {
      const where = `${answer.statusCode} ${answer.headers['content-type']}`;
      expect(answer.headers['x-content-type-options'], where).toBe('nosniff');
      expect(answer.headers['x-frame-options'], where).toBe('DENY');
      expect(answer.headers['referrer-policy'], where).toBe('no-referrer');
      expect(frameAncestors(answer.headers['content-security-policy']), where).toBe(true);
    }
  });

  it('gives the JSON API a policy that loads nothing, and each HTML route its own that loads only its own assets', async () => {
    const api = await t.app.inject({ url: '/v1/nature/items', headers: auth(key) });
    expect(api.headers['content-security-policy']).toContain("default-src 'none'");
    const guide = await t.app.inject({ url: '/docs' });
    expect(guide.headers['content-type']).toMatch(/^text\/html/);
    expect(guide.headers['content-security-policy']).toMatch(/style-src 'sha256-/);
    const reference = await t.app.inject({ url: '/v1/docs' });
    expect(reference.headers['content-type']).toMatch(/^text\/html/);
    expect(reference.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(reference.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(frameAncestors(reference.headers['content-security-policy'])).toBe(true);
    // The component is read from callers' pages on other origins.
    expect((await t.app.inject({ url: '/v1/embed/nature-assessment.js' })).headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});
