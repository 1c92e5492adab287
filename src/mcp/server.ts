import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { ApiKeyRecord, Scope } from '../domain/api-keys.js';
import type { CallApi } from './api-call.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import { tools } from './tools.js';

const INSTRUCTIONS =
  'The Nature Profile API: subjects (people), the 76-item Multiple Natures / Multiple Intelligences assessment, and the profiles it is scored into. ' +
  'To assess someone: create_subject, start_assessment, get_item_bank, then submit_responses in batches until all 76 are answered, then get_profile. ' +
  'The administer_assessment prompt says how to give it in conversation. Profiles list the 9 Natures and 10 Intelligences in alphabetical order: ' +
  'never rank them (the explain_profile prompt). With the situational scopes, create_situational_assessment reads a situation told in free text ' +
  "against a subject's latest profile: poll get_situational_assessment until it is completed or failed. " +
  'Errors are the API problem details: read code and detail, and fix what they name.';

/**
 * The MCP server for one API key: only the tools, resources and prompts its scopes allow are listed at all, and each
 * one calls the public API with that key through `call`, so the API's own checks apply to every call as well. A
 * tool called though not listed still goes to the API, whose refusal (insufficient_scope) is the tool's error: the
 * model learns the rule from the API, not a bare "not found".
 */
export function natureMcpServer(call: CallApi, key: Pick<ApiKeyRecord, 'id' | 'scopes'>): McpServer {
  const { scopes } = key;
  const server = new McpServer(
    { name: 'nature-profile-api', title: 'Nature Profile API', version: packageJson.version },
    { instructions: INSTRUCTIONS },
  );
  server.server.registerCapabilities({ tools: {} });
  const listed = tools.filter((tool) => scopes.includes(tool.scope));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed.map((tool) => tool.definition) }));
  server.server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = tools.find((candidate) => candidate.name === params.name);
    if (tool === undefined) {
      return {
        isError: true,
        content: [{ type: 'text', text: `There is no tool ${params.name}: tools/list names those this key may use.` }],
      };
    }
    return tool.call({ call, keyId: key.id }, params.arguments ?? {});
  });
  const allowed = <Part extends { scopes: readonly Scope[] }>(parts: readonly Part[]) =>
    parts.filter((part) => part.scopes.every((scope) => scopes.includes(scope)));
  const [offeredResources, offeredPrompts] = [allowed(resources), allowed(prompts)];
  for (const part of [...offeredResources, ...offeredPrompts]) part.register(server, call);
  // Stateless: this server lives for one request and never tells of a change, whatever the SDK assumed on registering.
  const unchanging = { listChanged: false };
  server.server.registerCapabilities({
    tools: unchanging,
    ...(offeredResources.length > 0 && { resources: unchanging }),
    ...(offeredPrompts.length > 0 && { prompts: unchanging }),
  });
  return server;
}
