import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFetch } from '../support/inject-fetch.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

describe('the MCP endpoint under the operator’s settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Ten requests per 10 s per key, and live keys allowed over MCP.
    t = await openTestApp({ NATURE_RATE_LIMIT_PER_SECOND: '1', NATURE_RATE_LIMIT_BURST: '10', NATURE_MCP_LIVE_KEYS: 'allow' });
  });
  afterAll(() => t.close());

  async function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
    const inProcess = injectFetch(t.app);
    const client = new Client({ name: 'nature-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/v1/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
        fetch: (url, init) => inProcess(new Request(url, init)),
      }),
    );
    return client;
  }

  it('lets a live key list and call the tools once NATURE_MCP_LIVE_KEYS=allow, on production data', async () => {
    const agent = await connect((await t.mint('live', 'sk')).raw);
    expect((await agent.listTools()).tools).toHaveLength(9);
    const bank = (await agent.callTool({ name: 'get_item_bank', arguments: {} })) as CallToolResult;
    expect(bank.isError).toBeFalsy();
    await agent.close();
  });

  it('counts every MCP request and every API call a tool makes against the key’s rate limit, and says so as a tool error', async () => {
    const agent = await connect((await t.mint('test', 'sk')).raw);
    // Connecting took two requests (initialize, then its notification) and listing one; each tool call takes two.
    await agent.listTools();
    for (let call = 1; call <= 3; call++) {
      expect(((await agent.callTool({ name: 'get_item_bank', arguments: {} })) as CallToolResult).isError).toBeFalsy();
    }
    // The 10th request (this call's own) is let through; its API call, the 11th, is refused.
    const limited = (await agent.callTool({ name: 'get_item_bank', arguments: {} })) as CallToolResult;
    expect(limited.isError).toBe(true);
    expect((limited.content[0] as { text: string }).text).toMatch(/^The Nature Profile API answered 429 rate_limited: /);
    // The next MCP request itself is refused, with the API's problem.
    await expect(agent.listTools()).rejects.toThrow(/429/);
    await agent.close();
  });

  it('ignores an Idempotency-Key header a client sends with every MCP request: each request is answered as itself', async () => {
    const agent = await connect((await t.mint('test', 'sk')).raw, { 'idempotency-key': 'the-same-every-time' });
    const english = (await agent.callTool({ name: 'get_item_bank', arguments: {} })) as CallToolResult;
    const french = (await agent.callTool({ name: 'get_item_bank', arguments: { language: 'fr' } })) as CallToolResult;
    expect([english.structuredContent?.language, french.structuredContent?.language]).toEqual(['en', 'fr']);
    await agent.close();
  });

  it('refuses a publishable key: agents act from a server, with a secret key', async () => {
    await expect(connect((await t.mint('test', 'pk')).raw)).rejects.toThrow(/insufficient_scope/);
  });
});
