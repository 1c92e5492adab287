import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexCatalogue } from '../../src/careers/careers-index.js';
import type { Scope } from '../../src/domain/api-keys.js';
import { client } from '../support/api-client.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';
import { mcpAgent } from '../support/mcp-agent.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

describe('the careers tools over MCP', () => {
  let t: TestApp;
  beforeAll(async () => {
    const careers = indexCatalogue(smallCatalogue());
    t = await openTestApp({}, { careers: { current: () => careers } });
  });
  afterAll(() => t.close());

  const connect = (scopes: Scope[]) => mcpAgent(t, scopes);
  const structured = (result: unknown) => {
    const call = result as CallToolResult;
    expect(call.isError, JSON.stringify(call.content)).toBeFalsy();
    return call.structuredContent as Record<string, any>;
  };

  it('lists search_careers and match_careers to a careers:read key only', async () => {
    const names = async (scopes: Scope[]) => (await (await connect(scopes)).agent.listTools()).tools.map((tool) => tool.name);
    expect((await names(['careers:read'])).sort()).toEqual(['match_careers', 'search_careers']);
    expect(await names(['nature:read', 'nature:write'])).not.toContain('search_careers');
  });

  it('searches careers and matches an inline profile', async () => {
    const { agent } = await connect(['careers:read']);
    const found = structured(await agent.callTool({ name: 'search_careers', arguments: { query: 'nurse', job_zone: [3] } }));
    expect(found.data.map((career: { id: string }) => career.id).sort()).toEqual(['car_nurse_er', 'car_rn']);
    expect(found.catalogue_version).toBe('onet-27.0/careers-map-v1');
    const profile = profileOf(0.2, { healing: 0.95, interpersonal: 0.9 });
    const matched = structured(await agent.callTool({ name: 'match_careers', arguments: { profile, limit: 2 } }));
    expect(matched.data).toHaveLength(2);
    expect(matched.data[0].occupation.code).toBe('29-1141.00');
  });

  it("matches a stored profile with nature:read too, and says the API's refusal without it", async () => {
    const { agent, key } = await connect(['careers:read', 'nature:read', 'nature:write']);
    const api = client(t, key);
    const { subjectId } = await api.completeAssessment();
    const profileId = (await api.profileOf(subjectId)).id as string;
    expect(structured(await agent.callTool({ name: 'match_careers', arguments: { profile_id: profileId } })).profile_id).toBe(profileId);
    const careersOnly = (await connect(['careers:read'])).agent;
    const refused = (await careersOnly.callTool({ name: 'match_careers', arguments: { profile_id: profileId } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(/403 insufficient_scope/);
  });
});
