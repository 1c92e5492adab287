import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { injectApi } from '../../mcp/api-call.js';
import { natureMcpServer } from '../../mcp/server.js';
import { jsonRpcError } from '../json-rpc-errors.js';
import { paramErrors } from '../mcp-params.js';
import { requestOrigin } from '../origin.js';
import { ProblemError, problemBody } from '../problem.js';

export interface McpSettings {
  /** Whether live keys may be used here (NATURE_MCP_LIVE_KEYS=allow). */
  liveKeys: boolean;
}

/** The URL the SDK's web-standard transport is given: only its path is read. */
const IN_PROCESS = 'http://in-process.invalid';

/**
 * The answer with the request's id in each error that carries nothing else (the transport's own, a method not
 * found), as every REST answer has it: the id the request log and the request-id header name.
 */
function withRequestId(text: string, requestId: string): string {
  const messages: unknown = JSON.parse(text);
  for (const message of [messages].flat() as { error?: { data?: unknown } }[]) {
    if (message.error !== undefined && message.error.data === undefined) message.error.data = { request_id: requestId };
  }
  return JSON.stringify(messages);
}

/** The request as the SDK's web-standard transport takes it: its headers and the body fastify has parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`${IN_PROCESS}${request.url}`, { method: request.method, headers, body: JSON.stringify(request.body) });
}

/**
 * The MCP endpoint (streamable HTTP, stateless): each POST is answered by a server made for the caller's key, whose
 * tools call the public API in process with that same key. Scopes decide what is listed; the API decides every call.
 */
export function registerMcpRoute(app: FastifyInstance, { liveKeys }: McpSettings, publicUrl: string | undefined): void {
  app.post(
    '/v1/mcp',
    {
      // A JSON-RPC endpoint, documented in /docs/mcp rather than as one opaque operation of the OpenAPI document.
      schema: { hide: true },
      // A read-only key may list and call the read tools: each tool's call is checked for its own scope.
      // A header an MCP client sends with every request would replay one answer to all; the tools send their own.
      config: { anyScope: true, ignoresIdempotencyKey: true, jsonRpc: true },
    },
    async (request, reply) => {
      if (request.apiKey.environment === 'live' && !liveKeys) {
        throw new ProblemError(
          'mcp_live_keys_disabled',
          'Live keys may not be used over MCP on this server: use a test_ key, or ask the operator to set NATURE_MCP_LIVE_KEYS=allow.',
        );
      }
      // The auth hook has read this header and found the key: the tools call the API with it, in this process. A
      // refusal (a 429 included) goes back to the model at once, which decides what to do.
      const caller = { authorization: request.headers.authorization!, host: request.headers.host };
      const server = natureMcpServer(injectApi(app, caller), request.apiKey);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      // Params the protocol's schema refuses are answered here in the API's words: the SDK would answer zod's dump
      // as an internal error.
      const deliver = transport.onmessage;
      transport.onmessage = (message, extra) => {
        const errors = isJSONRPCRequest(message) ? paramErrors(message) : [];
        if (!isJSONRPCRequest(message) || errors.length === 0) return deliver?.(message, extra);
        const detail = `The params of ${message.method} have ${errors.length} invalid field(s).`;
        const problem = problemBody('validation_failed', detail, request.id, requestOrigin(publicUrl, request.raw) ?? '', {
          errors: errors.slice(0, 20),
        });
        const words = `${detail.slice(0, -1)}: ${errors.map((error) => error.message).join(' ')}`;
        void transport.send(jsonRpcError(message.id, ErrorCode.InvalidParams, words, problem));
      };
      try {
        const answer = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
        reply.code(answer.status);
        answer.headers.forEach((value, name) => {
          reply.header(name, value);
        });
        const text = await answer.text();
        // A notification's 202 has no body.
        return reply.send(
          text !== '' && /\bjson\b/.test(answer.headers.get('content-type') ?? '') ? withRequestId(text, request.id) : text,
        );
      } finally {
        await server.close();
      }
    },
  );
}
