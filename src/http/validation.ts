import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { jsonPointer } from './json-pointer.js';

/** The marker fastify-type-provider-zod's hasZodFastifySchemaValidationErrors looks for. */
const ZOD_VALIDATION_ERROR = Symbol.for('ZodFastifySchemaValidationError');

/**
 * fastify-type-provider-zod's validator, with each issue's path as a proper JSON Pointer: the provider
 * joins keys with "/" unescaped, so a key holding "/" or "~" would point at the wrong field.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return {
      error: result.error.issues.map(({ path, code, message, ...params }) => ({
        [ZOD_VALIDATION_ERROR]: true,
        keyword: code,
        instancePath: jsonPointer(path),
        schemaPath: `#${jsonPointer(path)}/${code}`,
        message,
        params,
      })),
    };
  };
