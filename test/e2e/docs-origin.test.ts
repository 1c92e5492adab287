import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHtml } from '../support/html-text.js';
import { type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

/** Where each guide names the server, as a reader sees the page's text. */
const namings = (origin: string): Record<string, string[]> => ({
  '/docs/getting-started': [`below goes to ${origin}, the server that serves this guide,`, `BASE=${origin}\n`],
  '/docs/conventions': [`curl -s -D - -o /dev/null ${origin}/v1/nature/subjects -H`],
  '/docs/client': [`baseUrl: '${origin}'`],
  '/docs/usage': [`curl -s ${origin}/v1/nature/usage -H`],
  '/docs/quality': [`curl -s -X PATCH ${origin}/v1/nature/subjects/$SUBJECT/assessments/$ASSESSMENT \\`],
  '/docs/webhooks': [`curl -s ${origin}/v1/nature/webhook_endpoints -H`],
  '/docs/embedding': [`<script type="module" src="${origin}/v1/embed/nature-assessment.js"></script>`],
});

const HOSTILE = 'evil.example"><script>alert(1)</script>';

/** The text of an HTML page, as a reader sees it (tags dropped, entities decoded). */
const textOf = (html: string) => decodeHtml(html.replace(/<[^>]*>/g, ''));

/** Checks every guide's examples against `origin`, and that no page names another server. */
async function expectGuidesToName(origin: string, get: (path: string) => Promise<string>): Promise<void> {
  for (const [path, lines] of Object.entries(namings(origin))) {
    const text = textOf(await get(path));
    for (const line of lines) expect(text, path).toContain(line);
    expect(text, path).not.toMatch(/8080|API_HOST|\{\{/);
  }
}

describe('the docs and the OpenAPI document name the server they came from', () => {
  describe('a server process on a port other than 8080', () => {
    const data = tempDir();
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServer({ NATURE_DATA_DIR: data.path });
    });
    afterAll(async () => {
      server?.process.kill('SIGTERM');
      await server?.exited;
      data.cleanup();
    });

    /** A GET over real HTTP with the Host header as given: fetch may not set it. */
    const getWithHost = (path: string, host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { port } = new URL(server.url);
        const sent = request({ host: '127.0.0.1', port, path, headers: { host } }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        });
        sent.on('error', reject);
        sent.end();
      });

    it("gives the OpenAPI document, and the API reference's copy of it, this server as its one server", async () => {
      expect(server.url).not.toContain(':8080');
      for (const path of ['/v1/openapi.json', '/v1/docs/json']) {
        expect(((await (await fetch(`${server.url}${path}`)).json()) as any).servers, path).toEqual([{ url: server.url }]);
      }
      expect(await (await fetch(`${server.url}/v1/docs/yaml`)).text()).toContain(`servers:\n  - url: ${server.url}\n`);
    });

    it("shows this server in every guide's examples, and the embedding guide's module URL loads", async () => {
      await expectGuidesToName(server.url, async (path) => (await fetch(`${server.url}${path}`)).text());
      const module = await fetch(`${server.url}/v1/embed/nature-assessment.js`);
      expect(module.status).toBe(200);
      expect(module.headers.get('content-type')).toMatch(/javascript/);
    });

    it('never echoes a Host that is no host name: the address the connection reached stands in for it', async () => {
      const page = await getWithHost('/docs/getting-started', HOSTILE);
      expect(page.status).toBe(200);
      expect(page.body).not.toContain('evil');
      expect(page.body).not.toContain('<script');
      expect(textOf(page.body)).toContain(`BASE=${server.url}\n`);
      const doc = await getWithHost('/v1/openapi.json', HOSTILE);
      expect(JSON.parse(doc.body).servers).toEqual([{ url: server.url }]);
    });
  });

  describe('in-process, by the Host a request carries', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await openTestApp();
    });
    afterAll(() => t.close());
    const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

    it('names the origin of the Host (a name or an address, with its port), never X-Forwarded-*: no proxy is trusted', async () => {
      const forwarded = { 'x-forwarded-host': 'proxy.example', 'x-forwarded-proto': 'https' };
      for (const [host, origin] of [
        ['api.example.test:9443', 'http://api.example.test:9443'],
        ['[::1]:7000', 'http://[::1]:7000'],
        ['Docs.Example.test:80', 'http://docs.example.test'],
      ] as const) {
        expect((await get('/v1/openapi.json', { host, ...forwarded })).json().servers, host).toEqual([{ url: origin }]);
        await expectGuidesToName(origin, async (path) => (await get(path, { host, ...forwarded })).body);
      }
    });

    it('gives a page a validator per origin, so a cached copy for one Host is never confirmed for another', async () => {
      const first = await get('/docs/getting-started', { host: 'one.example.test' });
      const second = await get('/docs/getting-started', { host: 'two.example.test' });
      expect(first.headers.etag).not.toBe(second.headers.etag);
      const revalidated = await get('/docs/getting-started', { host: 'two.example.test', 'if-none-match': first.headers.etag as string });
      expect(revalidated.statusCode).toBe(200);
      expect(textOf(revalidated.body)).toContain('BASE=http://two.example.test\n');
      expect(
        (await get('/docs/getting-started', { host: 'one.example.test', 'if-none-match': first.headers.etag as string })).statusCode,
      ).toBe(304);
    });

    it.each([HOSTILE, 'two words.test', 'x.test:99999', 'user@x.test', 'x.test/evil'])('never echoes the Host %j', async (host) => {
      const page = await get('/docs/embedding', { host });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain(host);
      expect(page.body).not.toContain('<script');
      expect((await get('/v1/openapi.json', { host })).json().servers).toEqual([{ url: 'http://localhost' }]);
    });
  });

  describe('with NATURE_PUBLIC_URL, behind a proxy', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await openTestApp({ NATURE_PUBLIC_URL: 'https://nature.example.com/' });
    });
    afterAll(() => t.close());

    it('names that origin whatever Host the proxy sends', async () => {
      const headers = { host: '10.0.0.7:3000' };
      const get = async (url: string) => t.app.inject({ method: 'GET', url, headers });
      expect((await get('/v1/openapi.json')).json().servers).toEqual([{ url: 'https://nature.example.com' }]);
      expect((await get('/v1/docs/json')).json().servers).toEqual([{ url: 'https://nature.example.com' }]);
      await expectGuidesToName('https://nature.example.com', async (path) => (await get(path)).body);
    });
  });
});
