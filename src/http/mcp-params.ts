import { ClientRequestSchema, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { FieldError } from './problem.js';
import { validated } from './validation.js';

/** Each request the protocol defines, by its method. */
const schemas = new Map<string, z.ZodType>(ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]));

/**
 * What is wrong with a request's params, each field named in the API's words ("`params.name` must be a string, not
 * a number."), where the SDK would answer zod's own dump as an internal error; none for a method the protocol does
 * not define, which the SDK answers as not found.
 */
export function paramErrors(request: JSONRPCRequest): FieldError[] {
  const schema = schemas.get(request.method);
  if (schema === undefined) return [];
  const result = validated(schema, request, 'body');
  return [...('errors' in result ? result.errors : []), ...prototypeArgument(request)];
}

/**
 * A tool argument named `__proto__`: the SDK's record of arguments drops it, so the tool would never see it to
 * refuse it, and would run as if it were not there. Every other unknown argument the tool refuses itself.
 */
function prototypeArgument(request: JSONRPCRequest): FieldError[] {
  const args = request.params?.arguments;
  if (request.method !== 'tools/call' || typeof args !== 'object' || args === null || !Object.hasOwn(args, '__proto__')) return [];
  return [{ path: '/params/arguments/__proto__', in: 'body', message: 'Unknown field `params.arguments.__proto__`.' }];
}
