import { z } from 'zod';
import { firstUnprintable } from '../domain/text.js';
import { CONTROL_CHARACTERS, codePoints, hasControlCharacter, UNPRINTABLE_KIND } from './schemas.js';

const MAX_KEYS = 50;
const MAX_KEY_LENGTH = 40;
const MAX_VALUE_LENGTH = 500;

const jsonSchema = {
  type: 'object',
  description: `Free-form string tags: at most ${MAX_KEYS} keys of 1..${MAX_KEY_LENGTH} characters, values of at most ${MAX_VALUE_LENGTH} characters.`,
  maxProperties: MAX_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_KEY_LENGTH },
  additionalProperties: { type: 'string', maxLength: MAX_VALUE_LENGTH },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The caller's metadata. Checked key by key instead of with z.record, which drops a `__proto__` key:
 * every key, `__proto__` and `constructor` included, is kept as plain data in an own property.
 */
export const metadataInput = z
  .unknown()
  .superRefine((value, ctx) => {
    if (!isPlainObject(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be an object of string values.' });
      return;
    }
    const entries = Object.entries(value);
    if (entries.length > MAX_KEYS)
      ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_KEYS} keys; it has ${entries.length}.` });
    for (const [key, item] of entries) {
      if (key.length === 0 || codePoints(key) > MAX_KEY_LENGTH) {
        ctx.addIssue({ code: 'custom', path: [key], message: `must have a name of 1 to ${MAX_KEY_LENGTH} characters.` });
      }
      const unprintable = firstUnprintable(key);
      if (hasControlCharacter(key))
        ctx.addIssue({ code: 'custom', path: [key], message: `must have a name without ${CONTROL_CHARACTERS}.` });
      else if (unprintable !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `must have a name printable on one line; ${unprintable} is ${UNPRINTABLE_KIND}.`,
        });
      if (typeof item !== 'string') ctx.addIssue({ code: 'custom', path: [key], message: 'must be a string.' });
      else if (codePoints(item) > MAX_VALUE_LENGTH)
        ctx.addIssue({ code: 'custom', path: [key], message: `must be at most ${MAX_VALUE_LENGTH} characters long.` });
      else if (hasControlCharacter(item)) ctx.addIssue({ code: 'custom', path: [key], message: `must not contain ${CONTROL_CHARACTERS}.` });
    }
  })
  .transform((value) => Object.fromEntries(Object.entries(value as Record<string, string>)))
  .meta(jsonSchema);

/** Metadata in a response: already checked on the way in, passed through untouched. */
export const metadataOutput = z.custom<Record<string, string>>(isPlainObject).meta(jsonSchema);
