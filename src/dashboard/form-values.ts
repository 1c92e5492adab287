import { z } from 'zod';
import { ProblemError } from '../http/problem.js';

/** The hidden fields every form carries (layout.ts's formTokens); plugin.ts and form-once.ts check them. */
const tokens = { _csrf: z.string(), _once: z.string().optional() };

/** A form field given once, as text. */
export const text = z.string();

/** A field the form offers a fixed set of values for (radio buttons, a select). */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values);

/** Checkboxes: none ticked sends nothing, one sends text, several send a list; each must be offered. */
export const someOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .union([z.enum(values), z.array(z.enum(values))])
    .optional()
    .transform((chosen) => (chosen === undefined ? [] : [chosen].flat()));

/**
 * The form's values, each checked against what the form offers: a field it does not have, a value it does not
 * offer, a field sent twice or left out is refused with 422 naming the field, before anything is changed.
 */
export function formValues<Shape extends z.ZodRawShape>(shape: Shape, body: unknown) {
  const parsed = z.strictObject({ ...tokens, ...shape }).safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const names = [
    ...new Set(
      parsed.error.issues.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? 'form')])),
    ),
  ];
  throw new ProblemError(
    'validation_failed',
    `The form's ${names.join(', ')} ${names.length === 1 ? 'has' : 'have'} a value this form does not offer, so nothing was changed. Go back, reload the page and send it again.`,
  );
}
