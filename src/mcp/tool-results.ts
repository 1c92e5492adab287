import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { ApiRefusal } from './api-call.js';

/** Arguments the tool's schema lets through but the tool cannot act on: told to the model as a tool error. */
export class ToolInputError extends Error {}

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
    if (error instanceof ToolInputError) return { isError: true, content: [{ type: 'text', text: error.message }] };
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
