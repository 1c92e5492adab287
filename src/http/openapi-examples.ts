import type { Json } from './openapi-problems.js';

/**
 * An example for a schema of the document, built from the examples its parts carry: a resource's own
 * example, else its fields' (ids, timestamps, …), so a list or a wrapper shows the same realistic values.
 */
export function exampleOf(schema: Json, schemas: Json): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if ('default' in schema && schema.default !== null) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (typeof schema.$ref === 'string') return exampleOf(schemas[schema.$ref.replace('#/components/schemas/', '')] as Json, schemas);
  const branch = [...((schema.anyOf ?? schema.oneOf ?? []) as Json[])].find((option) => option.type !== 'null');
  if (branch !== undefined) return exampleOf(branch, schemas);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((part: Json) => exampleOf(part, schemas)));
  const type = Array.isArray(schema.type)
    ? schema.type.find((option) => option !== 'null')
    : (schema.type ?? (schema.properties ? 'object' : undefined));
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => [name, exampleOf(property, schemas)]),
      );
    case 'array':
      return schema.items === undefined ? [] : [exampleOf(schema.items as Json, schemas)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return schema.format === 'date-time' ? '2026-11-21T19:20:57.021Z' : 'text';
  }
}
