import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { type JsonRpcError, jsonRpcError } from '../http/json-rpc-errors.js';

/**
 * A line the agent wrote: a message to relay, or the relay's own answer to it (none for notifications) and why it
 * was not relayed, for stderr.
 */
export type AgentLine = { message: JSONRPCMessage } | { answer: JsonRpcError | JsonRpcError[] | undefined; why: string };

/** A request's id, where the value has one JSON-RPC allows. */
const idOf = (value: unknown) => {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/**
 * One line of stdin as JSON-RPC 2.0 says a server answers it: not JSON is a parse error (-32700, id null); a batch
 * (MCP sends one message per line since 2025-06-18, and the endpoint answers each on its own) is an invalid request
 * for each of its requests, answered as an array; anything else that is no message is an invalid request (-32600).
 */
export function readAgentLine(line: string): AgentLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const why = `a line that is not JSON was not relayed (${(error as Error).message})`;
    return { answer: jsonRpcError(null, ErrorCode.ParseError, `Parse error: the line is not JSON: ${(error as Error).message}`), why };
  }
  if (Array.isArray(value)) {
    const why = `a batch of ${value.length} messages was not relayed: send one message per line`;
    const refused = 'Invalid request: nature mcp relays one message per line, not a batch: send each message on a line of its own.';
    // A batch's notifications get no answer; an empty batch is itself an invalid request.
    const answers = value.flatMap((item) =>
      typeof (item as { method?: unknown } | null)?.method === 'string' && idOf(item) === null
        ? []
        : [jsonRpcError(idOf(item), ErrorCode.InvalidRequest, refused)],
    );
    return {
      answer: value.length === 0 ? jsonRpcError(null, ErrorCode.InvalidRequest, refused) : answers.length > 0 ? answers : undefined,
      why,
    };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const why = 'a line that is not a JSON-RPC 2.0 message was not relayed';
  return { answer: jsonRpcError(idOf(value), ErrorCode.InvalidRequest, `Invalid request: ${why}.`), why };
}
