import type { z } from 'zod';

/**
 * zod's issues in plain words, as predicates that follow a field's name ("`limit` must be at most 100."): zod's own
 * ("Invalid input: expected object, received undefined") are written for programmers. A schema's own message
 * wins over these and is written the same way, as a predicate.
 */
export function issueWording(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required.';
      if (issue.expected === 'int' && typeof issue.input === 'number') return 'must be a whole number.';
      return `must be ${expectedKinds[issue.expected] ?? issue.expected}, not ${kindOf(issue.input)}.`;
    case 'too_small':
      return sizeWording(
        issue.origin,
        Number(issue.minimum),
        issue.exact ? 'exactly' : issue.inclusive === false ? 'more than' : 'at least',
      );
    case 'too_big':
      return sizeWording(
        issue.origin,
        Number(issue.maximum),
        issue.exact ? 'exactly' : issue.inclusive === false ? 'less than' : 'at most',
      );
    case 'invalid_format':
      return issue.format === 'regex' ? `must match the pattern ${issue.pattern}.` : `must be a valid ${issue.format}.`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${shown(issue.values[0])}.` : `must be one of: ${issue.values.map(shown).join(', ')}.`;
    // Unknown keys are worded one by one where they are split up (validation.ts); the rest no schema here raises.
    default:
      return 'is not valid.';
  }
}

const expectedKinds: Partial<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

/** What a value is, as a person says it: "a string", "an array", "null", "true". */
function kindOf(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** An allowed value as a caller would write it: strings bare (en, fr), anything else as JSON. */
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

const counted = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

function sizeWording(origin: string, bound: number, relation: string): string {
  if (origin === 'string')
    return bound === 1 && relation === 'at least' ? 'must not be empty.' : `must be ${relation} ${counted(bound, 'character')} long.`;
  if (origin === 'array') return `must have ${relation} ${counted(bound, 'item')}.`;
  return `must be ${relation} ${bound}.`;
}
