import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC error answer; `id` is null where the request's own could not be read (JSON-RPC 2.0 §5). */
export interface JsonRpcError<Id extends RequestId | null = RequestId | null> {
  jsonrpc: '2.0';
  id: Id;
  error: { code: number; message: string; data?: unknown };
}

export function jsonRpcError<Id extends RequestId | null>(id: Id, code: number, message: string, data?: unknown): JsonRpcError<Id> {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } };
}
