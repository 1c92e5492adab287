import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemCodes } from '../../src/http/problem.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const pages = ['/docs', '/docs/getting-started', '/docs/errors', '/docs/webhooks', '/docs/embedding', '/docs/quality', '/docs/situational'];

describe('the docs pages under /docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp({ NATURE_WEBHOOK_RETRY_SCHEDULE: '2s,90s,1h', NATURE_WEBHOOK_TIMEOUT_MS: '2500' });
  });
  afterAll(() => t.close());
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it.each(pages)('serves %s as HTML without a key, cacheable and loading nothing from elsewhere', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers.etag).toMatch(/^"[\w-]+"$/);
    // No script, font or stylesheet from anywhere: only the page's own inline stylesheet, by its hash.
    expect(response.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+'/);
    expect(response.body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(response.body).not.toMatch(/<script|<link|src="http|@import/);

    const again = await get(url, { 'if-none-match': response.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get(url, { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('lists every error code the server answers with, its status, meaning and fix, and no other, each row an anchor named by its code', async () => {
    const html = (await get('/docs/errors')).body;
    const rows = [
      ...html.matchAll(
        /<tr id="(\w+)">\s*<td>(\d{3})<\/td>\s*<td><code>(\w+)<\/code><\/td>\s*<td>(.*?)<\/td>\s*<td>(.*?)<\/td>\s*<\/tr>/gs,
      ),
    ].map(([, id, status, code, meaning, fix]) => ({ id, status: Number(status), code: code!, meaning: meaning!, fix: fix! }));
    const catalogue = Object.fromEntries(rows.map((row) => [row.code, row.status]));
    const served = Object.fromEntries(Object.entries(problemCodes).map(([code, { status }]) => [code, status]));
    expect(catalogue).toEqual(served);
    expect(rows).toHaveLength(Object.keys(problemCodes).length);
    for (const row of rows) {
      expect(row.id).toBe(row.code);
      expect(row.meaning.length, row.code).toBeGreaterThan(10);
      expect(row.fix.length, row.code).toBeGreaterThan(10);
    }
  });

  it("has the anchor of every code the OpenAPI document lists, where each problem's type leads", async () => {
    const document = (await get('/v1/openapi.json')).json();
    const codes: string[] = document.components.schemas.Problem.properties.code.enum;
    expect(codes.length).toBeGreaterThan(20);
    const html = (await get('/docs/errors')).body;
    const anchors = [...html.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id);
    for (const code of codes) expect(anchors, code).toContain(code);
    // A real answer's type, followed: the page it names is served, with the anchor it names.
    const { type } = (await get('/v1/nature/nowhere')).json();
    const url = new URL(type);
    expect((await get(url.pathname)).statusCode).toBe(200);
    expect(anchors).toContain(url.hash.slice(1));
  });

  it("quotes this server's own webhook retry schedule and timeout", async () => {
    const html = (await get('/docs/webhooks')).body;
    expect(html).toContain('within 2.5 s');
    expect(html).toContain('4 attempts in');
    expect(html).toMatch(/<td>2<\/td>\s*<td>2 s after attempt 1 failed<\/td>\s*<td>2 s<\/td>/);
    expect(html).toMatch(/<td>3<\/td>\s*<td>1.5 min after attempt 2 failed<\/td>\s*<td>1.5 min<\/td>/);
    expect(html).toMatch(/<td>4<\/td>\s*<td>1 h after attempt 3 failed<\/td>\s*<td>1 h<\/td>/);
    expect(html).not.toContain('<td>5</td>');
    expect(html).not.toContain('{{');
  });

  it("says the same of deliveries in the OpenAPI document's webhooks section", async () => {
    const delivery = (await get('/v1/openapi.json')).json().webhooks['nature.assessment.completed'].post;
    expect(delivery.description).toContain(
      'A 2xx within 2.5 s is a delivery; anything else is retried with backoff (about 2 s, 1.5 min, 1 h after each failed attempt)',
    );
    expect(delivery.responses['200'].description).toBe('Any 2xx answer within 2.5 s: delivered. The body is ignored.');
  });

  it('shows text in angle brackets as text, never as a tag', async () => {
    expect((await get('/docs/getting-started')).body).toContain('Authorization: Bearer &lt;API key&gt;');
    expect((await get('/docs/errors')).body).toContain('Authorization: Bearer &lt;API key&gt;');
  });

  it('marks the French section of the French guide as French, and only it', async () => {
    const html = (await get('/docs/french')).body;
    const section = /<section lang="fr">([\s\S]*?)<\/section>/.exec(html)?.[1];
    expect(section).toContain('>En français</h2>');
    expect(section).toContain('démarrez-la avec');
    expect(section).not.toContain('How the French was written');
    expect(html.match(/lang="fr"/g)).toHaveLength(1);
  });

  it('renders every guide from its Markdown file, with no Markdown left over', async () => {
    for (const url of pages) {
      const html = (await get(url)).body;
      const name = url === '/docs' ? 'index' : url.slice('/docs/'.length);
      const title = /^# (.+)$/m.exec(readFileSync(new URL(`../../docs/${name}.md`, import.meta.url), 'utf8'))![1]!;
      expect(html).toContain(`<h1 id=`);
      expect(html).toContain(`>${title}</h1>`);
      const text = html.replace(/<pre>[\s\S]*?<\/pre>/g, '').replace(/<code>[\s\S]*?<\/code>/g, '');
      expect(text, url).not.toMatch(/^#{1,6} |\*\*|```|\]\(/m);
    }
  });

  it('answers 404 problem+json for a page that does not exist', async () => {
    const response = await get('/docs/nope');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });
});
