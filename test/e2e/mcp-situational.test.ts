import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/domain/api-keys.js';
import { client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { mcpAgent } from '../support/mcp-agent.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const SITUATION =
  'Leading a small team through a hard deadline: planning the work, keeping everyone calm and explaining the changes to the client.';
const SITUATIONAL: Scope[] = ['situational:read', 'situational:write'];

describe('the situational tools over MCP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  const connect = (scopes: Scope[]) => mcpAgent(t, scopes);
  const structured = (result: unknown) => {
    const call = result as CallToolResult;
    expect(call.isError, JSON.stringify(call.content)).toBeFalsy();
    return call.structuredContent as Record<string, any>;
  };
  const refusal = (result: unknown) => {
    const call = result as CallToolResult;
    expect(call.isError).toBe(true);
    return (call.content[0] as { text: string }).text;
  };

  it('lists the situational tools to keys with the situational scopes only, each to its own scope', async () => {
    const names = async (scopes: Scope[]) => (await (await connect(scopes)).agent.listTools()).tools.map((tool) => tool.name).sort();
    expect(await names(['situational:read'])).toEqual(['get_situational_assessment', 'list_situational_assessments']);
    expect(await names(['situational:write'])).toEqual(['create_situational_assessment']);
    expect(await names(['nature:read', 'nature:write', 'careers:read'])).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/situational/)]),
    );
    const tools = (await (await connect(SITUATIONAL)).agent.listTools()).tools;
    for (const tool of tools) {
      // What an agent must know before it calls: the answer comes later, and the text is the person's.
      expect(tool.description).toMatch(/until status is completed .*or failed/);
      expect(tool.description).toMatch(/personal data/);
    }
    const create = tools.find((tool) => tool.name === 'create_situational_assessment')!;
    expect(create.inputSchema.required?.slice().sort()).toEqual(['situation_context', 'subject_id']);
    expect(create.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(create.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('creates a situational assessment, polls it until it is completed, then lists it', async () => {
    const { agent, key } = await connect(['nature:read', 'nature:write', ...SITUATIONAL]);
    const api = client(t, key);
    const { subjectId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);
    const accepted = structured(
      await agent.callTool({
        name: 'create_situational_assessment',
        arguments: { subject_id: subjectId, situation_context: SITUATION, idempotency_key: 'deadline-1' },
      }),
    );
    expect(accepted).toMatchObject({ object: 'situational_assessment', subject_id: subjectId, profile_id: profile.id, language: 'en' });
    expect(accepted.id).toMatch(/^sit_/);
    expect(['pending', 'completed']).toContain(accepted.status);
    // The same name again is the same write, answered as the first time.
    const again = structured(
      await agent.callTool({
        name: 'create_situational_assessment',
        arguments: { subject_id: subjectId, situation_context: SITUATION, idempotency_key: 'deadline-1' },
      }),
    );
    expect(again.id).toBe(accepted.id);

    const done = await eventually(async () => {
      const read = structured(
        await agent.callTool({ name: 'get_situational_assessment', arguments: { situational_assessment_id: accepted.id } }),
      );
      return read.status === 'pending' ? undefined : read;
    });
    expect(done).toMatchObject({ id: accepted.id, status: 'completed', method_version: 'situational-v1' });
    expect(done.alignment.overall).toBeGreaterThanOrEqual(0);
    expect(done.alignment.overall).toBeLessThanOrEqual(1);
    expect(done.narrative).toEqual(expect.any(String));

    const listed = structured(await agent.callTool({ name: 'list_situational_assessments', arguments: { subject_id: subjectId } }));
    expect(listed).toMatchObject({ object: 'list', has_more: false });
    expect(listed.data.map((item: { id: string }) => item.id)).toEqual([accepted.id]);
    expect(listed.data[0]).toEqual(done);
  });

  it("gives the API's refusals as the tool's error: profile_required, and a scope the key lacks", async () => {
    const { agent, key } = await connect(['nature:read', 'nature:write', ...SITUATIONAL]);
    const subjectId = (await client(t, key).call('POST', '/v1/nature/subjects', validSubject())).body.id as string;
    const text = refusal(
      await agent.callTool({ name: 'create_situational_assessment', arguments: { subject_id: subjectId, situation_context: SITUATION } }),
    );
    expect(text).toMatch(/^The Nature Profile API answered 409 profile_required: /);
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1))).toMatchObject({ code: 'profile_required', status: 409 });

    // Not listed to a read-only key, and refused by the API when called anyway.
    const reader = (await connect(['situational:read'])).agent;
    const refused = refusal(
      await reader.callTool({ name: 'create_situational_assessment', arguments: { subject_id: subjectId, situation_context: SITUATION } }),
    );
    expect(refused).toMatch(/403 insufficient_scope/);
    expect(JSON.parse(refused.slice(refused.indexOf('\n') + 1))).toMatchObject({ required_scope: 'situational:write' });
  });

  it('checks ids and arguments before any call', async () => {
    const { agent } = await connect(SITUATIONAL);
    expect(refusal(await agent.callTool({ name: 'get_situational_assessment', arguments: { situational_assessment_id: '../x' } }))).toMatch(
      /situational_assessment_id: must be an id starting sit_/,
    );
    expect(refusal(await agent.callTool({ name: 'list_situational_assessments', arguments: { limit: 0 } }))).toMatch(/limit/);
  });
});
