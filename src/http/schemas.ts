import { z } from 'zod';
import { TIMESTAMP_FORMAT, parseInstant } from '../domain/instant.js';
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

/** Length in Unicode code points: what a person counts as characters, the same everywhere in the API. */
export const codePoints = (value: string) => [...value].length;

/** A string of min..max characters, counted in code points (zod's min/max count UTF-16 units). */
export function text(min: number, max: number) {
  const message = min === max ? `Must be ${min} characters.` : `Must be ${min}..${max} characters.`;
  return z
    .string()
    .refine((value) => codePoints(value) >= min && codePoints(value) <= max, message)
    .meta({ minLength: min, maxLength: max });
}

/** A timestamp in a request: a real UTC instant, echoed back normalised to the millisecond. */
export const instantInput = z
  .string()
  .transform((value, ctx) => {
    const at = parseInstant(value);
    if (at === undefined) {
      ctx.addIssue({ code: 'custom', message: `Must be ${TIMESTAMP_FORMAT}.` });
      return z.NEVER;
    }
    return at.toISOString();
  })
  .meta({ format: 'date-time' });
