import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { items } from '../../src/scoring/item-bank.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { callServer, envOutsideNpm, freePort, type ServerProcess, serverPool, spawnFromSource } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const READ_TOOLS = ['get_assessment', 'get_item_bank', 'get_profile', 'get_subject', 'list_events'];
const WRITE_TOOLS = ['create_subject', 'erase_subject', 'start_assessment', 'submit_responses'];

const consent = () => ({
  text_version: 'consent-v3',
  granted_at: new Date().toISOString(),
  ui_hash: `sha256:${'ab'.repeat(32)}`,
});

/** create_subject's arguments for a new person. */
const newSubject = () => ({ name: 'create_subject', arguments: { external_subject_id: `mcp-${crypto.randomUUID()}`, consent: consent() } });

/** A tool's structured answer, once it succeeded. */
function structured(result: unknown): Record<string, any> {
  const call = result as CallToolResult;
  expect(call.isError, JSON.stringify(call.content)).toBeFalsy();
  return call.structuredContent as Record<string, any>;
}

/** A tool's error text, once it failed. */
function refusal(result: unknown): string {
  const call = result as CallToolResult;
  expect(call.isError).toBe(true);
  return (call.content[0] as { text: string }).text;
}

describe('the MCP server, with the SDK’s own client, against the server process', () => {
  let dir: ReturnType<typeof tempDir>;
  const servers = serverPool(() => ({ NATURE_DATA_DIR: dir.path }));
  let server: ServerProcess;
  let readWrite: string;
  let readOnly: string;
  let live: string;
  let otherWriter: string;
  let writeOnly: string;
  const clients: Client[] = [];

  const mint = async (args: string[]) => JSON.parse((await runCliInProcess(args, { NATURE_DATA_DIR: dir.path })).stdout).key as string;

  beforeAll(async () => {
    dir = tempDir();
    server = await servers.start();
    readWrite = await mint(keyCreateArgs('test', 'agent'));
    readOnly = await mint(['keys', 'create', '--env', 'test', '--type', 'sk', '--scope', 'nature:read', '--name', 'reader', '--json']);
    live = await mint(keyCreateArgs('live', 'live agent'));
    otherWriter = await mint(keyCreateArgs('test', 'another agent'));
    writeOnly = await mint(['keys', 'create', '--env', 'test', '--type', 'sk', '--scope', 'nature:write', '--name', 'writer', '--json']);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await servers.killAll();
    dir.cleanup();
  });

  /** A client over streamable HTTP at /v1/mcp, the key as its Bearer token. */
  async function overHttp(key: string): Promise<Client> {
    const client = new Client({ name: 'nature-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/v1/mcp', server.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    clients.push(client);
    return client;
  }

  /** A client over stdio, which starts `nature mcp` as a desktop agent would. */
  async function overStdio(key: string, baseUrl = server.url): Promise<Client> {
    const client = new Client({ name: 'nature-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--base-url', baseUrl],
        cwd: root,
        env: { ...(envOutsideNpm as Record<string, string>), NATURE_API_KEY: key },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  }

  describe.each([
    ['streamable HTTP', overHttp],
    ['stdio (nature mcp)', overStdio],
  ])('over %s', (_transport, connect) => {
    it('lists every tool for a read-write key, and only the read tools for a read-only one', async () => {
      const all = (await (await connect(readWrite)).listTools()).tools;
      expect(all.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
      const reading = (await (await connect(readOnly)).listTools()).tools;
      expect(reading.map((tool) => tool.name).sort()).toEqual(READ_TOOLS);
      for (const tool of all) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.description).toBeTruthy();
      }
      const erase = all.find((tool) => tool.name === 'erase_subject')!;
      expect(erase.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      expect(reading.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    });

    it('runs a whole assessment through tools: subject, start, the bank, 76 answers in 4 batches, the profile, then the erasure', async () => {
      const agent = await connect(readWrite);
      // Listed first, as an agent does: the client then checks every answer against the tool's output schema.
      expect((await agent.listTools()).tools).toHaveLength(9);
      const subject = structured(await agent.callTool(newSubject()));
      expect(subject).toMatchObject({ object: 'subject', status: 'active' });
      expect(structured(await agent.callTool({ name: 'get_subject', arguments: { subject_id: subject.id } }))).toEqual(subject);
      const assessment = structured(
        await agent.callTool({ name: 'start_assessment', arguments: { subject_id: subject.id, language: 'fr' } }),
      );
      expect(assessment).toMatchObject({ object: 'assessment', status: 'created', language: 'fr', responses_received: 0 });
      // The client secret is the person's page's, never the agent's.
      expect(assessment).not.toHaveProperty('client_secret');
      const bank = structured(await agent.callTool({ name: 'get_item_bank', arguments: { language: 'fr' } }));
      expect(bank.data).toHaveLength(76);
      expect(bank.language).toBe('fr');
      const answers = bank.data.map((item: { id: string }, index: number) => ({ item_id: item.id, value: (index % 5) + 1 }));
      let state: Record<string, any> = assessment;
      for (let batch = 0; batch < 4; batch++) {
        state = structured(
          await agent.callTool({
            name: 'submit_responses',
            arguments: { subject_id: subject.id, assessment_id: assessment.id, responses: answers.slice(batch * 19, batch * 19 + 19) },
          }),
        );
        expect(state.responses_received).toBe((batch + 1) * 19);
      }
      const done = structured(
        await agent.callTool({ name: 'get_assessment', arguments: { subject_id: subject.id, assessment_id: assessment.id } }),
      );
      expect(done).toMatchObject({ status: 'completed', unanswered_item_ids: [] });
      const profile = structured(await agent.callTool({ name: 'get_profile', arguments: { subject_id: subject.id } }));
      // The same profile the REST API serves.
      expect(profile).toEqual((await callServer(server, readWrite, 'GET', `/v1/nature/subjects/${subject.id}/profile`)).body);
      expect(profile).toMatchObject({ language: 'fr', descriptions: { version: 'v1-fr' } });
      expect(structured(await agent.callTool({ name: 'get_profile', arguments: { profile_id: profile.id } }))).toEqual(profile);
      const events = structured(await agent.callTool({ name: 'list_events', arguments: { limit: 100 } }));
      expect(events.data.some((event: any) => event.type === 'nature.assessment.completed' && event.data.profile_id === profile.id)).toBe(
        true,
      );

      expect(structured(await agent.callTool({ name: 'erase_subject', arguments: { subject_id: subject.id } }))).toEqual({
        id: subject.id,
        object: 'subject',
        deleted: true,
      });
      expect(refusal(await agent.callTool({ name: 'get_profile', arguments: { subject_id: subject.id } }))).toMatch(
        /answered 410 subject_erased/,
      );
    });

    it('gives a scope violation back as a tool error with the API’s code, and writes nothing', async () => {
      const reader = await connect(readOnly);
      const before = (await callServer(server, readWrite, 'GET', '/v1/nature/subjects?limit=100')).body.data.length;
      const text = refusal(await reader.callTool(newSubject()));
      expect(text).toMatch(/^The Nature Profile API answered 403 insufficient_scope: This operation needs the nature:write scope/);
      expect(JSON.parse(text.slice(text.indexOf('\n') + 1))).toMatchObject({ code: 'insufficient_scope', required_scope: 'nature:write' });
      expect((await callServer(server, readWrite, 'GET', '/v1/nature/subjects?limit=100')).body.data.length).toBe(before);
    });

    it('gives the API’s validation errors back as a tool error naming each bad entry, and stores nothing of the batch', async () => {
      const agent = await connect(readWrite);
      const subject = structured(await agent.callTool(newSubject()));
      const assessment = structured(await agent.callTool({ name: 'start_assessment', arguments: { subject_id: subject.id } }));
      const text = refusal(
        await agent.callTool({
          name: 'submit_responses',
          arguments: {
            subject_id: subject.id,
            assessment_id: assessment.id,
            responses: [
              { item_id: 'mn_001', value: 3 },
              // Within the tool's schema (an id is a string there), not the item bank's.
              { item_id: 'mn_999', value: 3 },
            ],
          },
        }),
      );
      expect(text).toMatch(/answered 422 validation_failed/);
      expect(text).toContain('/responses/1/item_id');
      const read = structured(
        await agent.callTool({ name: 'get_assessment', arguments: { subject_id: subject.id, assessment_id: assessment.id } }),
      );
      expect(read.responses_received).toBe(0);
      // Arguments outside the tool's own schema are refused before any call, each named.
      expect(refusal(await agent.callTool({ name: 'get_subject', arguments: {} }))).toMatch(/subject_id/);
      // An id is checked to be one before any call: ".." never walks the API's paths.
      expect(refusal(await agent.callTool({ name: 'get_profile', arguments: { subject_id: '..' } }))).toMatch(
        /subject_id: must be an id starting sub_/,
      );
    });

    it('writes once when a tool call is retried with its idempotency_key: the same subject, answered the same, one stored', async () => {
      const agent = await connect(readWrite);
      const external = `mcp-retry-${crypto.randomUUID()}`;
      // A name of the agent's own for this write: new per run, as both transports share the server.
      const name = `create-${crypto.randomUUID()}`;
      const args = { external_subject_id: external, consent: consent(), idempotency_key: name };
      const first = structured(await agent.callTool({ name: 'create_subject', arguments: args }));
      const again = structured(await agent.callTool({ name: 'create_subject', arguments: args }));
      expect(again).toEqual(first);
      const all = (await callServer(server, readWrite, 'GET', '/v1/nature/subjects?limit=100')).body.data;
      expect(all.filter((subject: any) => subject.external_subject_id === external)).toHaveLength(1);
      // Without one, the API's own rule still writes once, and names the subject to go on with.
      const { idempotency_key: _key, ...unkeyed } = args;
      const refused = refusal(await agent.callTool({ name: 'create_subject', arguments: unkeyed }));
      expect(refused).toMatch(/answered 409 subject_exists/);
      expect(refused).toContain(`"subject_id": "${first.id}"`);
      // Another key's write of the same name is another write: keys are kept apart per API key.
      const other = await connect(otherWriter);
      const theirs = structured(
        await other.callTool({
          name: 'create_subject',
          arguments: { external_subject_id: `mcp-${crypto.randomUUID()}`, consent: consent(), idempotency_key: name },
        }),
      );
      expect(theirs.id).not.toBe(first.id);
    });

    it("keeps a batch's idempotency_key to its assessment: the next assessment's batch-1 is another write", async () => {
      const agent = await connect(readWrite);
      const subject = structured(await agent.callTool(newSubject()));
      const batch = (assessmentId: string, value: number) =>
        agent.callTool({
          name: 'submit_responses',
          arguments: {
            subject_id: subject.id,
            assessment_id: assessmentId,
            responses: [{ item_id: 'mn_001', value }],
            idempotency_key: 'batch-1',
          },
        });
      const first = structured(await agent.callTool({ name: 'start_assessment', arguments: { subject_id: subject.id } }));
      expect(structured(await batch(first.id, 2)).responses_received).toBe(1);
      // Sent again after a lost answer: written once, answered the same.
      expect(structured(await batch(first.id, 2)).responses_received).toBe(1);
      expect((await callServer(server, readWrite, 'DELETE', `/v1/nature/subjects/${subject.id}/assessments/${first.id}`)).status).toBe(200);
      const second = structured(await agent.callTool({ name: 'start_assessment', arguments: { subject_id: subject.id } }));
      expect(second.id).not.toBe(first.id);
      expect(structured(await batch(second.id, 5)).responses_received).toBe(1);
    });

    it('refuses a live key unless the operator allows live keys over MCP', async () => {
      await expect(connect(live)).rejects.toThrow(/mcp_live_keys_disabled|Live keys may not be used over MCP/);
    });
  });

  it('offers the item bank, a profile and its chart as resources, and the two prompts, by scope', async () => {
    const agent = await overHttp(readWrite);
    const templates = (await agent.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate).sort();
    expect(templates).toEqual([
      'nature://items/{language}',
      'nature://profiles/{profile_id}',
      'nature://profiles/{profile_id}/chart.svg',
      'nature://subjects/{subject_id}/profile',
    ]);
    expect((await agent.listResources()).resources.map((resource) => resource.uri)).toEqual(['nature://items/en', 'nature://items/fr']);
    const bank = JSON.parse(((await agent.readResource({ uri: 'nature://items/fr' })).contents[0] as { text: string }).text);
    expect(bank.data[0].text).not.toBe(items[0]!.text);

    const subject = structured(await agent.callTool(newSubject()));
    const assessment = structured(await agent.callTool({ name: 'start_assessment', arguments: { subject_id: subject.id } }));
    await agent.callTool({
      name: 'submit_responses',
      arguments: { subject_id: subject.id, assessment_id: assessment.id, responses: items.map((item) => ({ item_id: item.id, value: 4 })) },
    });
    const latest = await eventually(async () => {
      const read = await agent.readResource({ uri: `nature://subjects/${subject.id}/profile` }).catch(() => undefined);
      return read === undefined ? undefined : JSON.parse((read.contents[0] as { text: string }).text);
    });
    expect(latest.subject_id).toBe(subject.id);
    const chart = (await agent.readResource({ uri: `nature://profiles/${latest.id}/chart.svg` })).contents[0] as {
      text: string;
      mimeType: string;
    };
    expect(chart.mimeType).toBe('image/svg+xml');
    expect(chart.text).toMatch(/^<svg /);

    expect((await agent.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual(['administer_assessment', 'explain_profile']);
    const administer = await agent.getPrompt({ name: 'administer_assessment', arguments: { subject_id: subject.id, language: 'fr' } });
    const instructions = (administer.messages[0]!.content as { text: string }).text;
    expect(instructions).toContain('one at a time');
    expect(instructions).toContain('1 = Ne me ressemble pas du tout');
    // A language the assessment cannot be given in is refused, not quietly taken for English.
    await expect(
      agent.getPrompt({ name: 'administer_assessment', arguments: { subject_id: subject.id, language: 'de' } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    const explain = await agent.getPrompt({ name: 'explain_profile', arguments: { profile_id: latest.id } });
    expect(JSON.stringify(explain.messages)).toContain(latest.id);
    expect(JSON.stringify(explain.messages)).toMatch(/Never rank/);

    const reader = await overHttp(readOnly);
    expect((await reader.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['explain_profile']);
  });

  it('says what each key may do: write tools only for a write-only key, no resources or prompts it could not follow; nothing it would change later', async () => {
    const writer = await overHttp(writeOnly);
    expect((await writer.listTools()).tools.map((tool) => tool.name).sort()).toEqual(WRITE_TOOLS);
    const capabilities = writer.getServerCapabilities()!;
    expect(capabilities.tools).toEqual({ listChanged: false });
    expect(capabilities.resources).toBeUndefined();
    expect(capabilities.prompts).toBeUndefined();
    const full = (await overHttp(readWrite)).getServerCapabilities()!;
    expect([full.tools, full.resources, full.prompts]).toEqual([{ listChanged: false }, { listChanged: false }, { listChanged: false }]);
  });

  it("gives a resource the API refuses as the protocol's error, with the API's words and problem", async () => {
    const agent = await overHttp(readWrite);
    const missing = await agent.readResource({ uri: 'nature://profiles/prf_01M7ZRVYPSC40AR17Y7WS0FTK0' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing).toMatchObject({ code: -32002, data: { code: 'profile_not_found' } });
    expect((missing as McpError).message).toMatch(/answered 404 profile_not_found/);
    // Said once: the client adds "MCP error -32002: " to what the server sent, which holds no prefix of its own.
    expect((missing as McpError).message).toMatch(/^MCP error -32002: (?!MCP error)/);
    // Its problem names the errors guide on the origin the agent reached, not the in-process call's own.
    expect((missing as McpError).data).toMatchObject({
      type: expect.stringMatching(/^http:\/\/127\.0\.0\.1(:\d+)?\/docs\/errors#profile_not_found$/),
    });
    const language = await agent.readResource({ uri: 'nature://items/de' }).catch((error: unknown) => error);
    expect(language).toMatchObject({ code: -32602, data: { code: 'validation_failed' } });
    expect((language as McpError).message).toMatch(/`language` must be one of: en, fr/);
  });

  describe('nature mcp, the process', () => {
    it('ends by itself with status 0 when the agent closes its stdin, having written nothing', async () => {
      // spawnFromSource gives the process no stdin: it ends at once.
      const { exited, output } = spawnFromSource(['src/cli/main.ts', 'mcp', '--base-url', server.url], { NATURE_API_KEY: readWrite });
      expect(await exited).toBe(0);
      expect(output()).toBe('');
    });

    /** `nature mcp` given these lines on stdin, closed at once: its exit status, its answers by line, and its stderr. */
    async function relay(key: string, lines: string[]) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--base-url', server.url], {
        cwd: root,
        env: { ...(envOutsideNpm as Record<string, string>), NATURE_API_KEY: key },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      child.stdin.end(lines.map((line) => `${line}\n`).join(''));
      const status = await exited;
      const answers = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
      return { status, answers, stderr };
    }
    const message = (body: object) => JSON.stringify({ jsonrpc: '2.0', ...body });
    const initialize = message({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
    });

    it('answers every request already sent before it ends, when the agent writes its messages and closes stdin at once', async () => {
      const { status, answers } = await relay(readOnly, [
        initialize,
        message({ method: 'notifications/initialized' }),
        message({ id: 2, method: 'tools/list' }),
      ]);
      expect(status).toBe(0);
      expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2]);
      expect(
        answers
          .find((answer) => answer.id === 2)
          .result.tools.map((tool: { name: string }) => tool.name)
          .sort(),
      ).toEqual(READ_TOOLS);
    });

    it('gives the agent the server’s own JSON-RPC error for a message nested too deep, under the request’s id', async () => {
      const arguments_ = { x: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) };
      const { answers } = await relay(readWrite, [
        initialize,
        message({ id: 2, method: 'tools/call', params: { name: 'get_item_bank', arguments: arguments_ } }),
      ]);
      expect(answers.find((answer) => answer.id === 2)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32700,
          message: expect.stringMatching(/^The request body nests arrays and objects more than 32 levels deep/),
          data: expect.objectContaining({ code: 'invalid_json', status: 400, request_id: expect.stringMatching(/^req_/) }),
        },
      });
    });

    it('answers a line that is not JSON -32700 and a batch -32600 per request, says so on stderr, and goes on relaying', async () => {
      const { status, answers, stderr } = await relay(readOnly, [
        initialize,
        'this is not JSON',
        `[${message({ id: 3, method: 'tools/list' })},${message({ method: 'notifications/initialized' })}]`,
        message({ id: 4, method: 'tools/list' }),
      ]);
      expect(status).toBe(0);
      expect(answers).toContainEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringMatching(/^Parse error: the line is not JSON/) },
      });
      // One answer per request of the batch, as JSON-RPC answers a batch: an array.
      expect(answers).toContainEqual([
        { jsonrpc: '2.0', id: 3, error: { code: -32600, message: expect.stringMatching(/one message per line/) } },
      ]);
      expect(answers.find((answer) => answer.id === 4).result.tools).toHaveLength(READ_TOOLS.length);
      expect(stderr).toMatch(/nature mcp: a line that is not JSON was not relayed/);
      expect(stderr).toMatch(/nature mcp: a batch of 2 messages was not relayed/);
    });

    it('answers the agent with why when the server cannot be reached, naming the address under the base URL’s path', async () => {
      const nowhere = `http://127.0.0.1:${await freePort()}/nature`;
      await expect(overStdio(readWrite, nowhere)).rejects.toThrow(
        new RegExp(`Could not reach the Nature Profile API at ${nowhere.replaceAll('.', '\\.')}/v1/mcp`),
      );
    });
  });
});
