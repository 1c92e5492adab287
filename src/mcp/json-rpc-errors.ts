import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC error answer; `id` is null where the request's own could not be read (JSON-RPC 2.0 §5). */
export interface JsonRpcError {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export function jsonRpcError(id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcError {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } };
}
