import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  JSONRPCErrorResponseSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { Command } from 'commander';
import { type ApiOptions, apiTarget, userAgent, withApiOptions } from './api-access.js';
import { readAgentLine } from './mcp-lines.js';

/** JSON-RPC's code for an error of the server's own (-32000..-32099): the API refused the request as a whole. */
const SERVER_ERROR = -32000;

type RelayError = JSONRPCErrorResponse['error'];

/** The body of an answer the server refused, read as JSON; undefined when it is not. */
function parsedBody(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a message could not be relayed, as the error the agent is answered with: the server's own JSON-RPC error when
 * it gave one (a message it could not read), the API's problem when it refused the request (a bad key, a live key
 * not allowed here), else what the transport said, else why the server could not be reached.
 */
function refusal(error: unknown, endpoint: URL): RelayError {
  if (error instanceof StreamableHTTPError) {
    const text = error.message.replace(/^.*?Error POSTing to endpoint: /, '');
    const body = parsedBody(text);
    // Its id is null (the server could not read the message), which the SDK's schema of a whole answer refuses.
    const answered = JSONRPCErrorResponseSchema.shape.error.safeParse(body?.error);
    if (body?.jsonrpc === '2.0' && answered.success) return answered.data;
    if (typeof body?.code === 'string' && typeof body.detail === 'string') {
      return { code: SERVER_ERROR, message: `The Nature Profile API answered ${error.code} ${body.code}: ${body.detail}`, data: body };
    }
    return { code: SERVER_ERROR, message: `The Nature Profile API answered ${error.code}: ${text}` };
  }
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return {
    code: SERVER_ERROR,
    message: `Could not reach the Nature Profile API at ${endpoint.href}: ${error instanceof Error ? error.message : String(error)}${cause}`,
  };
}

/**
 * `nature mcp`: the server's MCP endpoint (/v1/mcp) for an agent that speaks MCP over stdio (a desktop app). Each
 * message read on stdin is sent to the endpoint with the key, and each answer written to stdout, so the tools, the
 * scopes and every rule are the server's own. Nothing else is written to stdout: it is the protocol's.
 */
export function mcpCommand(env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): Command {
  return withApiOptions(
    new Command('mcp').description(
      "serve the API's MCP tools over stdio, for a desktop agent: relays to the server's /v1/mcp with the key (docs/mcp.md)",
    ),
  ).action(async (options: ApiOptions) => {
    // Live keys are allowed or refused by the server (NATURE_MCP_LIVE_KEYS), for both transports alike.
    const { apiKey, baseUrl } = apiTarget(options, env, { command: 'nature mcp', writes: false });
    // Under the base URL's own path, as every command keeps it (a server behind a proxy at /nature, say).
    const endpoint = new URL(`${baseUrl}/v1/mcp`);
    const remote = new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${apiKey}`, 'user-agent': userAgent } },
    });
    // The process's own stdin and stdout, one JSON-RPC message a line: an agent starts `nature mcp` as a process of its own.
    const { stdin, stdout } = process;
    const write = (message: unknown) =>
      new Promise<void>((resolve) => {
        if (stdout.write(`${JSON.stringify(message)}\n`)) resolve();
        else stdout.once('drain', resolve);
      });
    // Messages on their way to the server: their answers are written before the relay ends.
    const inFlight = new Set<Promise<void>>();
    const relay = (message: JSONRPCMessage) => {
      const relayed = remote.send(message).catch(async (error: unknown) => {
        const why = refusal(error, endpoint);
        // A refused request gets its answer (under its own id, which the server could not always read), so the agent
        // shows why instead of waiting; a notification has none, so it is said on stderr.
        if (isJSONRPCRequest(message)) await write({ jsonrpc: '2.0', id: message.id, error: why });
        else stderr.write(`nature mcp: ${why.message}\n`);
      });
      inFlight.add(relayed);
      void relayed.finally(() => inFlight.delete(relayed));
    };
    remote.onmessage = (message) => {
      // The version the agent and server agreed on goes with every later request (MCP-Protocol-Version), as the protocol asks.
      if (isJSONRPCResultResponse(message) && typeof message.result.protocolVersion === 'string') {
        remote.setProtocolVersion(message.result.protocolVersion);
      }
      void write(message);
    };
    await remote.start();
    const lines = createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      const read = readAgentLine(line);
      if ('message' in read) return relay(read.message);
      // Never dropped unsaid: the agent gets JSON-RPC's answer, and whoever reads stderr the reason.
      stderr.write(`nature mcp: ${read.why}\n`);
      if (read.answer !== undefined) void write(read.answer);
    });
    // The agent closing our stdin is the end of the session, once all is answered.
    await once(lines, 'close');
    await Promise.allSettled(inFlight);
    await remote.close();
  });
}
