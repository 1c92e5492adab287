import { describe, expect, it } from 'vitest';
import { problemTypeOf } from '../support/problems.js';
import { auth, logLength, type TestApp, useTestApp } from '../support/test-app.js';

/** The JSON-RPC messages of the protocol as raw bytes at /v1/mcp, in process: what a client gets when it sends them wrong. */
describe('the MCP endpoint’s errors, as JSON-RPC with the API’s words', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });

  const post = (payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/mcp',
      headers: { ...auth(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      payload,
    });
  const request = (id: number, method: string, params?: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });

  it('takes a message nested 32 levels deep and refuses 33 with a JSON-RPC parse error carrying the API’s problem', async () => {
    const before = await logLength(t.envs, 'test');
    // The message, params, arguments and `x`'s arrays: 3 + depth - 3 levels.
    const nested = (depth: number) =>
      request(1, 'tools/call', { name: 'get_item_bank', arguments: { x: JSON.parse(`${'['.repeat(depth - 3)}${']'.repeat(depth - 3)}`) } });
    const within = await post(nested(32));
    expect(within.statusCode).toBe(200);
    // The tool's own refusal of an unknown argument: the message was read.
    expect(within.json()).toMatchObject({ id: 1, result: { isError: true } });
    for (const body of [nested(33), '['.repeat(5000) + ']'.repeat(5000)]) {
      const answer = await post(body);
      expect({ status: answer.statusCode, type: answer.headers['content-type'] }).toEqual({
        status: 400,
        type: expect.stringMatching(/^application\/json/),
      });
      const detail = 'The request body nests arrays and objects more than 32 levels deep: no request of this API needs more than 32.';
      expect(answer.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32700,
          message: detail,
          data: {
            type: problemTypeOf('invalid_json'),
            title: 'Invalid JSON',
            status: 400,
            detail,
            code: 'invalid_json',
            request_id: answer.headers['request-id'],
          },
        },
      });
    }
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('names the origin the request came to in the problems of tools and resources, as REST problems do', async () => {
    const host = { host: 'api.example.com' };
    const missing = 'sub_01M7ZRVYPSC40AR17Y7WS0FTK0';
    const tool = (await post(request(1, 'tools/call', { name: 'get_subject', arguments: { subject_id: missing } }), host)).json();
    expect(tool.result.isError).toBe(true);
    const text = tool.result.content[0].text as string;
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1)).type).toBe(problemTypeOf('not_found', 'http://api.example.com'));
    const resource = (await post(request(2, 'resources/read', { uri: `nature://subjects/${missing}/profile` }), host)).json();
    expect(resource.error.data.type).toBe(problemTypeOf('not_found', 'http://api.example.com'));
  });

  it.each([
    ['tools/call', { name: 5 }, [{ path: '/params/name', in: 'body', message: '`params.name` must be a string, not a number.' }]],
    ['tools/call', {}, [{ path: '/params/name', in: 'body', message: '`params.name` is required.' }]],
    [
      'resources/read',
      { uri: ['nature://items/en'] },
      [{ path: '/params/uri', in: 'body', message: '`params.uri` must be a string, not an array.' }],
    ],
    [
      'prompts/get',
      { name: 'explain_profile', arguments: { profile_id: 7 } },
      [{ path: '/params/arguments/profile_id', in: 'body', message: '`params.arguments.profile_id` must be a string, not a number.' }],
    ],
  ])('answers %s with malformed params -32602 invalid params in the API’s words, the problem as data', async (method, params, errors) => {
    const answer = await post(request(7, method, params));
    const { id, error } = answer.json();
    expect({ id, code: error.code }).toEqual({ id: 7, code: -32602 });
    expect(error.message).toBe(`The params of ${method} have ${errors.length} invalid field(s): ${errors.map((e) => e.message).join(' ')}`);
    expect(error.data).toEqual({
      type: problemTypeOf('validation_failed'),
      title: 'Validation failed',
      status: 422,
      detail: `The params of ${method} have ${errors.length} invalid field(s).`,
      code: 'validation_failed',
      request_id: answer.headers['request-id'],
      errors,
    });
  });

  it('gives every error of the transport and the protocol the request’s id, in its data as in its request-id header', async () => {
    const answers = [
      // Not a JSON-RPC message: the transport's parse error.
      await post(JSON.stringify({ hello: 'world' })),
      // An Accept without text/event-stream: the transport's 406.
      await post(request(1, 'tools/list'), { accept: 'application/json' }),
      // A method the protocol does not have.
      await post(request(2, 'tools/destroy')),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([400, 406, 200]);
    for (const answer of answers) {
      expect(answer.headers['request-id']).toMatch(/^req_/);
      expect(answer.json().error).toMatchObject({ code: expect.any(Number), data: { request_id: answer.headers['request-id'] } });
    }
  });

  it('refuses a tool argument named __proto__, which the SDK would drop unseen, and writes nothing', async () => {
    const before = await logLength(t.envs, 'test');
    const consent = { text_version: 'v1', granted_at: '2026-01-01T00:00:00Z', ui_hash: `sha256:${'ab'.repeat(32)}` };
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"create_subject","arguments":{"external_subject_id":"emp-proto","consent":${JSON.stringify(consent)},"__proto__":0}}}`;
    const { id, error } = (await post(body)).json();
    expect({ id, code: error.code, errors: error.data.errors }).toEqual({
      id: 9,
      code: -32602,
      errors: [{ path: '/params/arguments/__proto__', in: 'body', message: 'Unknown field `params.arguments.__proto__`.' }],
    });
    expect(await logLength(t.envs, 'test')).toBe(before);
  });
});
