import { type CallToolResult, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { ApiRefusal, InputError } from './api-call.js';

/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A tool's answer: the API's body as structured content (and as text, for clients that read only text), or the
 * API's problem details as a tool error, which the model reads and can act on (a field to fix, an id to go on
 * with, a scope the key lacks). A failure that is not the API's answering is an error of the call itself.
 */
export async function answered(call: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const body = (await call()) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }], structuredContent: body };
  } catch (error) {
    if (error instanceof ApiRefusal) {
      return { isError: true, content: [{ type: 'text', text: `${error.message}\n${JSON.stringify(error.problem, null, 2)}` }] };
    }
    if (error instanceof InputError) return { isError: true, content: [{ type: 'text', text: error.message }] };
    throw error;
  }
}

/** Arguments that do not fit the tool's input schema: each one named, so the model can send them again, fixed. */
export function inputRefused(tool: string, error: z.ZodError): CallToolResult {
  const problems = error.issues.map((issue) => `- ${issue.path.join('.') || '(arguments)'}: ${issue.message}`);
  return {
    isError: true,
    content: [{ type: 'text', text: `The arguments of ${tool} do not fit its input schema:\n${problems.join('\n')}` }],
  };
}

/**
 * A JSON-RPC error as the server sends it: its code, its message as it is, and its data. Not the SDK's McpError,
 * whose message already reads "MCP error -32002: …": the server sends the message whole and the client's McpError
 * adds the prefix again, so an agent read it twice.
 */
class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A refusal as the protocol error of a resource read or a prompt: a resource not found (or gone) as such, a bad
 * argument as invalid params, anything else as an internal error; the API's words in the message and its whole
 * problem as the error's data, for a client that reads it.
 */
export function asProtocolError(error: unknown): unknown {
  if (error instanceof InputError) return new ProtocolError(ErrorCode.InvalidParams, error.message);
  if (!(error instanceof ApiRefusal)) return error;
  const code =
    error.status === 404 || error.status === 410
      ? RESOURCE_NOT_FOUND
      : error.status < 500 && error.status !== 429
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError;
  return new ProtocolError(code, error.message, error.problem);
}
