import fc from 'fast-check';
import { deeplyNested, type JsonNode, serialize, toNode } from './json-text.js';
import type { Check, FuzzContext, FuzzRequest, Plan } from './requests.js';

/**
 * The MCP endpoint's part of the fuzz suite: JSON-RPC messages at /v1/mcp, valid and spoiled. The endpoint answers
 * in JSON-RPC, not problem+json, so its requests say what the protocol allows (`jsonRpc`): which error codes, and
 * whether a result may come; never a 5xx, never -32603 (an internal error), and every error carries a request id.
 */
const ROUTE = 'POST /v1/mcp';

const TOOLS = ['get_subject', 'get_item_bank', 'get_assessment', 'get_profile', 'list_events', 'create_subject', 'start_assessment'];
/** Valid arguments of each tool above, for a resource of the run: a mutation of them is what the tool must refuse. */
function validArguments(tool: string, ctx: FuzzContext): Record<string, unknown> {
  switch (tool) {
    case 'get_item_bank':
      return { language: 'en' };
    case 'list_events':
      return { limit: 5 };
    case 'create_subject':
      return {
        external_subject_id: ctx.fresh(),
        consent: { text_version: 'v1', granted_at: '2026-01-01T00:00:00Z', ui_hash: `sha256:${'ab'.repeat(32)}` },
      };
    case 'get_assessment':
      return { subject_id: ctx.refs.subjOpen, assessment_id: ctx.refs.asmOpen };
    default:
      return { subject_id: ctx.refs.subjOpen };
  }
}

/** A value no argument of the tools takes where a string, a number or an object is asked for. */
const junk = fc.constantFrom<unknown>(0, -1, 1.5, 1e308, true, null, [], ['x'], {}, { a: 'b' });

/** One POST of `body` to the endpoint with the rw key, as an MCP client sends it. */
function post(
  ctx: FuzzContext,
  body: Buffer,
  variant: string,
  jsonRpc: NonNullable<FuzzRequest['jsonRpc']>,
  expect: number[],
): FuzzRequest {
  return {
    method: 'POST',
    target: '/v1/mcp',
    version: 'HTTP/1.1',
    headers: [
      ['Authorization', `Bearer ${ctx.keys.rw}`],
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json, text/event-stream'],
    ],
    body,
    expect,
    variant,
    authLabel: '<rw key>',
    jsonRpc,
  };
}

const message = (id: unknown, method: string, params?: unknown): JsonNode =>
  toNode({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
const ids = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.string({ minLength: 1, maxLength: 20 }));

export function mcpChecks(): Check[] {
  const checks: Check[] = [];
  const add = (category: string, arbitrary: fc.Arbitrary<Plan>) => checks.push({ category, route: ROUTE, arbitrary });

  // What a client sends first: answered with a result.
  add(
    'mcp: protocol',
    fc
      .tuple(ids, fc.constantFrom('initialize', 'tools/list', 'ping', 'prompts/list', 'resources/list', 'resources/templates/list'))
      .map(([id, method]) => (ctx: FuzzContext) => {
        const params =
          method === 'initialize'
            ? { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }
            : undefined;
        return post(ctx, serialize(message(id, method, params)), method, { errors: [], result: true }, [200]);
      }),
  );

  // A tool called with its arguments spoiled: a field of the wrong kind, one missing, one unknown or a prototype name.
  add(
    'mcp: tool arguments',
    fc
      .tuple(
        fc.constantFrom(...TOOLS),
        fc.constantFrom<'replace' | 'remove' | 'add'>('replace', 'remove', 'add'),
        fc.nat(),
        junk,
        fc.constantFrom('unknown_field', '__proto__', 'constructor', 'idempotency_key '),
      )
      .map(([tool, edit, pick, value, extra]) => (ctx: FuzzContext) => {
        const args = validArguments(tool, ctx);
        const names = Object.keys(args);
        const name = names[pick % names.length]!;
        // A tool whose arguments are all optional takes one removed: a key never taken is added instead.
        const removable = edit === 'remove' && !['get_item_bank', 'list_events'].includes(tool);
        const spoilt =
          edit === 'replace'
            ? { ...args, [name]: value }
            : removable
              ? Object.fromEntries(Object.entries(args).filter(([key]) => key !== name))
              : toNode({ ...args, [extra]: value });
        return post(
          ctx,
          serialize(message(1, 'tools/call', { name: tool, arguments: spoilt })),
          `${tool} ${edit === 'replace' ? `${name} replaced` : removable ? `${name} removed` : 'key added'}`,
          // A tool's refusal is its result (isError), which the model reads; an argument named __proto__, which the SDK
          // would drop before the tool saw it, is refused as invalid params.
          { errors: [-32602], result: true },
          [200],
        );
      }),
  );

  // Params the protocol's schema refuses: -32602, in the API's words.
  add(
    'mcp: params',
    fc
      .tuple(
        fc.constantFrom<[string, (value: unknown) => unknown]>(
          ['tools/call', (value) => ({ name: value })],
          ['tools/call', (value) => ({ name: 'get_item_bank', arguments: value === null ? 5 : [value] })],
          ['resources/read', (value) => ({ uri: typeof value === 'string' ? 5 : value })],
          ['prompts/get', (value) => ({ name: 'explain_profile', arguments: { profile_id: typeof value === 'string' ? 7 : value } })],
          ['initialize', (value) => ({ protocolVersion: value, capabilities: {}, clientInfo: {} })],
        ),
        junk,
      )
      .map(
        ([[method, params], value]) =>
          (ctx: FuzzContext) =>
            post(ctx, serialize(message(2, method, params(value))), method, { errors: [-32602] }, [200]),
      ),
  );

  // Messages that are not JSON-RPC, or not a request the server answers: the transport's errors, or nothing to answer.
  add(
    'mcp: messages',
    fc
      .constantFrom<[string, unknown]>(
        ['no jsonrpc', { id: 1, method: 'tools/list' }],
        ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
        ['id an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }],
        ['method a number', { jsonrpc: '2.0', id: 1, method: 5 }],
        ['params a string', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'all' }],
        ['unknown method', { jsonrpc: '2.0', id: 1, method: 'tools/destroy' }],
        ['a result', { jsonrpc: '2.0', id: 1, result: {} }],
        ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
        ['an empty batch', []],
        ['a batch of junk', [1, 'x', null]],
        ['a string', 'tools/list'],
        ['null', null],
      )
      .map(
        ([variant, body]) =>
          (ctx: FuzzContext) =>
            // A result or a notification is taken (202) with nothing to answer.
            post(ctx, serialize(toNode(body)), variant, { errors: [-32700, -32600, -32601], result: false }, [200, 202, 400]),
      ),
  );

  // Deep nesting anywhere in a message: refused before anything walks it, as JSON-RPC's parse error.
  add(
    'mcp: nesting',
    fc.tuple(fc.integer({ min: 33, max: 12_000 }), fc.constantFrom<'array' | 'object'>('array', 'object')).map(
      ([depth, shape]) =>
        (ctx: FuzzContext) =>
          post(
            ctx,
            serialize(message(3, 'tools/call', { name: 'get_item_bank', arguments: { language: deeplyNested(depth, shape) } })),
            `nested ${shape}s`,
            { errors: [-32700] },
            [400, 413],
          ),
    ),
  );
  return checks;
}
