import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issueWording } from '../../src/http/issue-wording.js';

/** The words for the first issue a schema raises for a value; the HTTP tests see the rest (validation-messages.test.ts). */
const wordingOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value, { error: issueWording }).error?.issues[0]?.message;

describe('zod issues in plain words, for checks no route uses without words of its own', () => {
  it.each([
    ['a boolean', 'must be true or false, not a string.', z.boolean(), 'yes'],
    ['a literal string', 'must be en.', z.literal('en'), 'fr'],
    ['a literal number', 'must be 3.', z.literal(3), 4],
    ['a pattern', 'must match the pattern /^[a-z]+$/.', z.string().regex(/^[a-z]+$/), 'A'],
    ['an email', 'must be a valid email.', z.email(), 'nobody'],
    ['an exact length', 'must be exactly 3 characters long.', z.string().length(3), 'ab'],
    ['a shortest length', 'must be at least 2 characters long.', z.string().min(2), 'a'],
    ['a longest length', 'must be at most 2 characters long.', z.string().max(2), 'abc'],
    ['an exact count', 'must have exactly 1 item.', z.array(z.number()).length(1), []],
    ['a positive number', 'must be more than 0.', z.number().positive(), 0],
    ['a number under 5', 'must be less than 5.', z.number().lt(5), 5],
    ['a whole number', 'must be a whole number.', z.number().int(), 1.5],
    ['a union', 'is not valid.', z.union([z.string(), z.number()]), true],
  ])('%s: "%s"', (_check, words, schema, value) => {
    expect(wordingOf(schema, value)).toBe(words);
  });
});
