import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { gettingStarted, readerMachine, root, runBlocks, servedGuide } from '../support/docs-blocks.js';
import { expectLikeExample } from '../support/json-examples.js';

/** What the guide's Tools section lists for a key with nature:read and nature:write (the reader's, of Getting started). */
const READ_WRITE_TOOLS = [
  'create_subject',
  'erase_subject',
  'get_assessment',
  'get_item_bank',
  'get_profile',
  'get_subject',
  'list_events',
  'start_assessment',
  'submit_responses',
];

/** The documented placeholders a reader replaces in the client configs: their key, and where their checkout is. */
const KEY_PLACEHOLDER = 'test_sk_…';
const CHECKOUT_PLACEHOLDER = '/path/to/nature-profile-api';

interface ClientConfig {
  mcpServers: Record<
    string,
    { type?: string; url?: string; headers?: Record<string, string>; command?: string; args?: string[]; env?: Record<string, string> }
  >;
}

/** A config block as a reader fills it in: `replacements` (placeholder → value) applied, then read as JSON. */
function filledIn(text: string, replacements: Record<string, string>) {
  let filled = text;
  for (const [placeholder, value] of Object.entries(replacements)) {
    expect(text).toContain(placeholder);
    filled = filled.replaceAll(placeholder, value);
  }
  const servers = (JSON.parse(filled) as ClientConfig).mcpServers;
  expect(Object.keys(servers)).toEqual(['nature-profile']);
  return servers['nature-profile']!;
}

async function toolNames(client: Client): Promise<string[]> {
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('/docs/mcp, every block run as a reader pastes it, twice', () => {
  const machine = readerMachine();

  it('connects with both client configs, answers the two errors shown, and lists the tools with curl', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'mcp');
    expect(blocks.map((block) => block.lang)).toEqual(['json', 'json', 'json', 'json', 'sh']);
    const [httpConfig, stdioConfig, parseError, invalidParams, curl] = blocks.map((block) => block.text) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const key = JSON.parse((await runCliInProcess(keyCreateArgs('test', 'agent'), machine.dataEnv())).stdout).key as string;
    const mcp = (body: string) =>
      fetch(`${server.url}/v1/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });

    for (const run of [1, 2]) {
      // Streamable HTTP: the config's url and headers, as a client that takes them uses them.
      const http = filledIn(httpConfig, { [KEY_PLACEHOLDER]: key });
      expect(http.type).toBe('http');
      const overHttp = new Client({ name: 'docs-reader', version: '1.0.0' });
      await overHttp.connect(new StreamableHTTPClientTransport(new URL(http.url!), { requestInit: { headers: http.headers! } }));
      expect(await toolNames(overHttp), `run ${run}`).toEqual(READ_WRITE_TOOLS);

      // stdio: the command a desktop agent starts, from somewhere outside the checkout, with the config's env.
      const stdio = filledIn(stdioConfig, { [KEY_PLACEHOLDER]: key, [CHECKOUT_PLACEHOLDER]: root.replace(/\/$/, '') });
      const overStdio = new Client({ name: 'docs-reader', version: '1.0.0' });
      await overStdio.connect(
        new StdioClientTransport({ command: stdio.command!, args: stdio.args!, env: stdio.env!, cwd: tmpdir(), stderr: 'pipe' }),
      );
      expect(await toolNames(overStdio), `run ${run}`).toEqual(READ_WRITE_TOOLS);

      // A body nested 40 levels deep: the parse error shown, its problem under this server's address.
      const deep = `${'['.repeat(40)}${']'.repeat(40)}`;
      const tooDeep = await mcp(`{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"deep": ${deep}}}`);
      expect(tooDeep.status).toBe(400);
      const tooDeepBody = (await tooDeep.json()) as { error: { data: { request_id: string } } };
      expectLikeExample(tooDeepBody, JSON.parse(parseError));
      expect(tooDeepBody.error.data.request_id).toBe(tooDeep.headers.get('request-id'));

      // A tools/call whose name is a number: invalid params, each field named as a REST 422 names it.
      const badParams = await mcp('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": 7}}');
      const badParamsBody = (await badParams.json()) as { error: { data: { request_id: string } } };
      expectLikeExample(badParamsBody, JSON.parse(invalidParams));
      expect(badParamsBody.error.data.request_id).toBe(badParams.headers.get('request-id'));
    }

    // The curl block, in the terminal of Getting started (its NATURE_API_KEY), twice.
    const terminal = [...(await gettingStarted(server)), curl];
    for (const run of [1, 2]) {
      const output = await runBlocks(terminal, machine.dataEnv());
      // The answer is curl's last line: Getting started's own lines come before it.
      const listed = JSON.parse(output.trimEnd().split('\n').at(-1)!) as {
        jsonrpc: string;
        id: number;
        result: { tools: { name: string }[] };
      };
      expect(listed, `run ${run}`).toMatchObject({ jsonrpc: '2.0', id: 1 });
      expect(listed.result.tools.map((tool) => tool.name).sort()).toEqual(READ_WRITE_TOOLS);
    }
  }, 240_000);
});
