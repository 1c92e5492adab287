import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '../../src/domain/api-keys.js';
import { client } from '../support/api-client.js';
import { mcpAgent } from '../support/mcp-agent.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

type Schema = { type?: string; minimum?: number; maximum?: number; properties?: Record<string, Schema>; items?: Schema };

/** Every integer of a schema, by its path: what a model reads as the values it may send. */
function integers(schema: Schema, path: string, found: [string, Schema][] = []): [string, Schema][] {
  if (schema.type === 'integer') found.push([path, schema]);
  for (const [name, property] of Object.entries(schema.properties ?? {})) integers(property, `${path}.${name}`, found);
  if (schema.items) integers(schema.items, `${path}[]`, found);
  return found;
}

describe('the MCP tools publish the bounds the API keeps', () => {
  let t: TestApp;
  let agent: Client;
  let key: string;
  beforeAll(async () => {
    t = await openTestApp();
    ({ agent, key } = await mcpAgent(t, [...scopes]));
  });
  afterAll(() => t.close());

  it('bounds every integer of every tool by what it means, never by the ±2^53 of a bare integer', async () => {
    const all = (await agent.listTools()).tools.flatMap((tool) => integers(tool.inputSchema as Schema, tool.name));
    expect(all.length).toBeGreaterThan(5);
    for (const [path, schema] of all) {
      expect(Math.abs(schema.minimum ?? 0), path).toBeLessThan(2 ** 53 - 1);
      expect(Math.abs(schema.maximum ?? 0), path).toBeLessThan(2 ** 53 - 1);
      expect([schema.minimum, schema.maximum], path).not.toContain(undefined);
    }
    const bounds = Object.fromEntries(all.map(([path, { minimum, maximum }]) => [path, [minimum, maximum]]));
    expect(bounds['submit_responses.responses[].value']).toEqual([1, 5]);
    expect(bounds['submit_responses.responses[].response_time_ms']).toEqual([0, 3_600_000]);
  });

  it('refuses a negative response time, naming it, and records nothing', async () => {
    const { subjectId } = await client(t, key).completeAssessment();
    const open = (await client(t, key).call('POST', `/v1/nature/subjects/${subjectId}/assessments`)).body;
    const result = (await agent.callTool({
      name: 'submit_responses',
      arguments: { subject_id: subjectId, assessment_id: open.id, responses: [{ item_id: 'mn_001', value: 3, response_time_ms: -5 }] },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/response_time_ms/);
    expect((await client(t, key).call('GET', `/v1/nature/subjects/${subjectId}/assessments/${open.id}`)).body.responses_received).toBe(0);
  });
});
