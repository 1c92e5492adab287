import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Scope } from '../../src/domain/api-keys.js';
import { injectFetch } from './inject-fetch.js';
import type { TestApp } from './test-app.js';

/** An MCP agent (the official SDK's client) on the app's /v1/mcp over streamable HTTP, in-process, with a new sandbox key of `scopes`. */
export async function mcpAgent(t: TestApp, scopes: Scope[]): Promise<{ agent: Client; key: string }> {
  const key = (await t.mint('test', 'sk', scopes)).raw;
  const inProcess = injectFetch(t.app);
  const agent = new Client({ name: 'nature-test', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL('http://127.0.0.1/v1/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => inProcess(new Request(url, init)),
    }),
  );
  return { agent, key };
}
