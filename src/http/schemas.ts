import { z } from 'zod';
import { idPattern } from '../domain/ids.js';
import { parseInstant, TIMESTAMP_FORMAT } from '../domain/instant.js';
import { firstUnprintable } from '../domain/text.js';
import { type ProblemCode, problemCodes } from './problem.js';

/**
 * The problem+json body as the serializer checks it: every error body has these members, and the extension
 * members that some codes add pass through. The document describes each code exactly (openapi-problems.ts).
 */
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
  .loose();

/**
 * A success response and the words that describe it in the document, which would otherwise say "Default
 * Response". Fastify and the zod provider read a schema under `content` as they read it bare.
 */
export function success<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } };
}

/** The codes a route declared with `problems`, keyed by the schema that carries them to the document. */
const declaredCodes = new WeakMap<z.ZodType, readonly ProblemCode[]>();

const errorStatuses = [...new Set(Object.values(problemCodes).map(({ status }) => status))];

/**
 * The error responses of a route: `codes` are the ones particular to it (not_found, subject_exists, …);
 * the document adds those every route or every write can answer (openapi-problems.ts). Every error status
 * gets the problem schema, so any error body is serialized the same way whichever status it has.
 */
export function problems(...codes: ProblemCode[]): Record<number, z.ZodType> {
  const schema = problemSchema.clone();
  declaredCodes.set(schema, codes);
  return Object.fromEntries(errorStatuses.map((status) => [status, schema]));
}

/** The codes `problems` declared, if `schema` is one of its schemas. */
export function problemCodesOf(schema: unknown): readonly ProblemCode[] | undefined {
  return schema instanceof z.ZodType ? declaredCodes.get(schema) : undefined;
}

const EXAMPLE_TIME = '2026-11-21T19:20:57.021Z';

export const timestamp = z
  .string()
  .meta({ format: 'date-time', description: 'ISO 8601 UTC, to the millisecond.', examples: [EXAMPLE_TIME] });

/** The ids' shape: a prefix and a ULID (26 Crockford base32 characters), for the document only. */
export function id(prefix: string, example: string, description?: string) {
  return z.string().meta({ pattern: idPattern(prefix).source, examples: [example], ...(description !== undefined && { description }) });
}

/** Example ids, one per kind, reused across the document's examples so they read as one story. */
export const exampleIds = {
  subject: 'sub_01JD4Z8Q3V6N2XK7M5T9B1C0EA',
  assessment: 'asm_01JD4Z9T2W8P4RK1N6V3C7D5FB',
  profile: 'prf_01JD4ZB6H3Y9Q5SM2P8W4E6G7H',
  previousProfile: 'prf_01JD4ZA1F2X8P4RK1N6V3C7D5J',
  event: 'evt_01JD4ZB6J0K2R7TN3Q9X5F8H1M',
  endpoint: 'whe_01JD4Z7N5R1M8QJ2K4T6V9W3XA',
  delivery: 'whd_01JD4ZB7P4S6V8XZ1B3D5F7H9K',
  key: 'key_01JD4Z6K2M4P6R8T0V2X4Z6B8D',
  request: 'req_01JD4ZB6G8N3Q7TV1X5Z9C3F7K',
  situational: 'sit_01JD4ZC2K5N7Q9SV3X6Z8B1D4F',
} as const;

/** Length in Unicode code points: what a person counts as characters, the same everywhere in the API. */
export const codePoints = (value: string) => [...value].length;

/**
 * A string of min..max characters, counted in code points (zod's min/max count UTF-16 units). Its messages, like
 * every schema's own, are predicates that follow the field's name (issue-wording.ts).
 */
export function text(min: number, max: number) {
  const length = min === max ? `exactly ${min}` : min === 0 ? `at most ${max}` : `${min} to ${max}`;
  return z
    .string()
    .refine((value) => codePoints(value) >= min && codePoints(value) <= max, `must be ${length} characters long.`)
    .refine((value) => !hasControlCharacter(value), `must not contain ${CONTROL_CHARACTERS}.`)
    .meta({ minLength: min, maxLength: max });
}

/**
 * A one-line name or identifier of min..max characters: beyond `text`, no format, separator or invisible character
 * (U+202E, U+2028, U+200B, U+3164, …: domain/text.ts), which would let two values that look alike differ or reorder
 * what an operator reads where the value is listed.
 */
export function line(min: number, max: number) {
  return text(min, max).superRefine((value, ctx) => {
    const unprintable = firstUnprintable(value);
    if (unprintable !== undefined && !hasControlCharacter(value))
      ctx.addIssue({ code: 'custom', message: `must be printable on one line; ${unprintable} is ${UNPRINTABLE_KIND}.` });
  });
}

/** What firstUnprintable finds, besides controls, in the words of a message. */
export const UNPRINTABLE_KIND = 'a format, separator or invisible character';

/**
 * C0 controls (NUL included), DEL and C1 controls: invisible, they would let two values that look alike differ,
 * cut a value short in another system (NUL) or forge lines in logs and exports.
 */
const CONTROL = /\p{Cc}/u;
export const CONTROL_CHARACTERS = 'control characters (U+0000..U+001F, U+007F..U+009F)';
export const hasControlCharacter = (value: string): boolean => CONTROL.test(value);

/** A timestamp in a request: a real UTC instant, echoed back normalised to the millisecond. */
export const instantInput = z
  .string()
  .transform((value, ctx) => {
    const at = parseInstant(value);
    if (at === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be ${TIMESTAMP_FORMAT}.` });
      return z.NEVER;
    }
    return at.toISOString();
  })
  .meta({ format: 'date-time' });

/** The security of a route a browser may call with a publishable key and a client secret, or a server with its secret key. */
export const skOrPkWithSecret: Record<string, string[]>[] = [{ apiKey: [] }, { apiKey: [], clientSecret: [] }];
