import type { FastifySchemaCompiler } from 'fastify';
import { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { fieldError, fieldName } from './field-errors.js';
import { issueWording } from './issue-wording.js';
import { jsonPointer } from './json-pointer.js';
import type { FieldError } from './problem.js';

/** The marker fastify-type-provider-zod's hasZodFastifySchemaValidationErrors looks for. */
const ZOD_VALIDATION_ERROR = Symbol.for('ZodFastifySchemaValidationError');

/** The part of the request each schema checks, as `errors[].in` names it. */
export const requestParts = { body: 'body', querystring: 'query', params: 'path', headers: 'header' } as const;

/**
 * fastify-type-provider-zod's validator, with each issue a field error whose message names the field in plain
 * words (issue-wording.ts) and whose path is a proper JSON Pointer (the provider joins keys with "/" unescaped,
 * so a key holding "/" or "~" would point at the wrong field). Each unknown key is an error of its own, with the
 * known field it likely misspells (did-you-mean.ts).
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const where = requestParts[httpPart as keyof typeof requestParts] ?? 'body';
  return (data) => {
    const result = validated(schema, data, where);
    if (!('errors' in result)) return result;
    return {
      error: result.errors.map(({ path, message }) => ({
        [ZOD_VALIDATION_ERROR]: true,
        keyword: 'invalid',
        instancePath: path,
        schemaPath: `#${path}`,
        message,
        params: {},
      })),
    };
  };
};

/**
 * `data` as `schema` takes it, or each field it refuses named in plain words (issue-wording.ts): the REST routes'
 * validation, and the MCP endpoint's check of a request's params.
 */
export function validated(schema: z.ZodType, data: unknown, where: FieldError['in']): { value: unknown } | { errors: FieldError[] } {
  // Most requests are valid: they are checked without the error map, which only a refusal needs (checked again with it).
  const plain = schema.safeParse(data);
  if (plain.success) return { value: plain.data };
  // Fastify passes a request without a body as null: a body that is null as a whole is missing.
  const wording = (issue: z.core.$ZodRawIssue) =>
    where === 'body' && issue.input === null && (issue.path ?? []).length === 0 ? 'is required: send a JSON object.' : issueWording(issue);
  // The fields of each object that refused a key, by its pointer: what a misspelt key is held against. Only the
  // error map sees the object schema that raised the issue.
  const known = new Map<string, string[]>();
  const error = (issue: z.core.$ZodRawIssue) => {
    if (issue.code === 'unrecognized_keys' && issue.inst instanceof z.ZodObject) {
      known.set(jsonPointer(issue.path ?? []), Object.keys(issue.inst.shape));
    }
    return wording(issue);
  };
  const result = schema.safeParse(data, { error });
  if (result.success) return { value: result.data };
  return {
    errors: result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => unknownField(where, issue.path, key, known.get(jsonPointer(issue.path)) ?? []))
        : [fieldError(where, issue.path, issue.message)],
    ),
  };
}

/** An unknown key: "Unknown field `nmae`: did you mean `name`?" when a field of the same object is that close. */
function unknownField(where: FieldError['in'], object: readonly PropertyKey[], key: string, known: readonly string[]): FieldError {
  const guess = didYouMean(key, known);
  const hint = guess === undefined ? '.' : `: did you mean \`${fieldName([...object, guess])}\`?`;
  const path = [...object, key];
  return {
    path: jsonPointer(path),
    in: where,
    message: `Unknown ${where === 'query' ? 'query parameter' : 'field'} \`${fieldName(path)}\`${hint}`,
  };
}
