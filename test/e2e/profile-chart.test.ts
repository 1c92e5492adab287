import { beforeAll, describe, expect, it } from 'vitest';
import { type ChartedProfile, renderProfileChart } from '../../src/charts/profile-chart.js';
import { type Body, client } from '../support/api-client.js';
import { expectProblem } from '../support/problems.js';
import { auth, type TestApp, useTestApp } from '../support/test-app.js';
import { allElements, parseXml, textOf } from '../support/xml.js';

describe('GET /v1/nature/profiles/{id}/chart.svg', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });
  let profile: Body;
  let chartUrl: string;
  beforeAll(async () => {
    const api = client(t, key);
    profile = await api.profileOf((await api.completeAssessment()).subjectId);
    chartUrl = `/v1/nature/profiles/${profile.id}/chart.svg`;
  });

  const get = (url: string, headers: Record<string, string> = {}, raw = key) =>
    t.app.inject({ url, headers: { ...auth(raw), ...headers } });

  it("answers the profile's chart as SVG, private and with an ETag, the same bytes every time", async () => {
    const answer = await get(`${chartUrl}?theme=dark&width=360`);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('private, max-age=300');
    expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // The API's policy, which loads nothing, suits a chart that loads nothing.
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.body).toBe(renderProfileChart(profile as ChartedProfile, { theme: 'dark', width: 360 }));

    const root = parseXml(answer.body);
    expect(root.attributes.width).toBe('360');
    const narratives = allElements(root)
      .filter((element) => element.name === 'desc' && element.attributes.id !== 'profile-chart-desc')
      .map(textOf);
    expect(narratives).toEqual([...profile.descriptions.natures, ...profile.descriptions.intelligences].map((d: Body) => d.text));

    const again = await get(`${chartUrl}?theme=dark&width=360`);
    expect(again.body).toBe(answer.body);
    expect(again.headers.etag).toBe(answer.headers.etag);
  });

  it('is light and 960 px wide unless asked otherwise, and each theme and width is its own representation', async () => {
    const plain = await get(chartUrl);
    expect(plain.body).toBe((await get(`${chartUrl}?theme=light&width=960`)).body);
    expect(parseXml(plain.body).attributes.width).toBe('960');
    const etags = await Promise.all(
      ['', '?theme=dark', '?width=320', '?width=1600', '?theme=dark&width=1600'].map(
        async (query) => (await get(`${chartUrl}${query}`)).headers.etag,
      ),
    );
    expect(new Set(etags).size).toBe(etags.length);
  });

  it('answers 304 without a body to a reader that has it (If-None-Match), and the chart again to one that has another', async () => {
    const { etag } = (await get(chartUrl)).headers;
    for (const held of [String(etag), `W/${etag}`, `"other", ${etag}`, '*']) {
      const revalidated = await get(chartUrl, { 'if-none-match': held });
      expect(revalidated.statusCode, held).toBe(304);
      expect(revalidated.body).toBe('');
      expect(revalidated.headers).toMatchObject({ etag, 'cache-control': 'private, max-age=300' });
    }
    const other = await get(`${chartUrl}?theme=dark`, { 'if-none-match': String(etag) });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
  });

  it.each([
    ['theme=blue', '/theme', '`theme` must be one of: light, dark.'],
    ['width=319', '/width', '`width` must be a whole number from 320 to 1600, in decimal digits.'],
    ['width=1601', '/width', '`width` must be a whole number from 320 to 1600, in decimal digits.'],
    ['width=960.5', '/width', '`width` must be a whole number from 320 to 1600, in decimal digits.'],
    ['width=0960', '/width', '`width` must be a whole number from 320 to 1600, in decimal digits.'],
    ['width=', '/width', '`width` must be a whole number from 320 to 1600, in decimal digits.'],
    ['width=400&width=500', '/width', '`width` is given 2 times; give it once.'],
    ['them=dark', '/them', 'Unknown query parameter `them`: did you mean `theme`?'],
  ])('refuses ?%s with 422 validation_failed naming the parameter', async (query, path, message) => {
    const body = expectProblem(await get(`${chartUrl}?${query}`), 422, 'validation_failed');
    expect(body.errors).toEqual([{ path, in: 'query', message }]);
  });

  it('answers 404 profile_not_found for a profile that does not exist, or is in the other environment', async () => {
    expectProblem(await get('/v1/nature/profiles/prf_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ/chart.svg'), 404, 'profile_not_found');
    const live = (await t.mint('live', 'sk')).raw;
    expectProblem(await get(chartUrl, {}, live), 404, 'profile_not_found');
  });

  it('needs nature:read, and is refused to a publishable key', async () => {
    expect((await get(chartUrl, {}, (await t.mint('test', 'sk', ['nature:read'])).raw)).statusCode).toBe(200);
    const writeOnly = expectProblem(await get(chartUrl, {}, (await t.mint('test', 'sk', ['nature:write'])).raw), 403, 'insufficient_scope');
    expect(writeOnly.required_scope).toBe('nature:read');
    const pk = (await t.mint('test', 'pk', ['nature:read'])).raw;
    expectProblem(await get(chartUrl, {}, pk), 403, 'insufficient_scope');
  });

  it("answers 410 subject_erased once the profile's subject is erased", async () => {
    const api = client(t, key);
    const { subjectId } = await api.completeAssessment();
    const erased = await api.profileOf(subjectId);
    expect((await get(`/v1/nature/profiles/${erased.id}/chart.svg`)).statusCode).toBe(200);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    const gone = expectProblem(await get(`/v1/nature/profiles/${erased.id}/chart.svg`), 410, 'subject_erased');
    expect(gone.subject_id).toBe(subjectId);
  });
});
