import { z } from 'zod';
import { type ProblemCode, problemCodes } from './problem.js';

/** The RFC 9457 body every error answers with. */
const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(problemCodes) as [ProblemCode, ...ProblemCode[]]),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), in: z.enum(['body', 'query', 'path', 'header']), message: z.string() })).optional(),
  })
  .loose()
  .describe('application/problem+json');

/** The error statuses a route documents, each with the problem body. */
export function problems(...statuses: number[]): Record<number, typeof problemSchema> {
  return Object.fromEntries([401, 403, ...statuses].map((status) => [status, problemSchema]));
}

export const timestamp = z.string().describe('ISO 8601 UTC');
