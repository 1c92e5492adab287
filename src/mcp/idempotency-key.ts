import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** The argument every POST and PATCH tool takes: what makes a retry of the call safe. */
export const idempotencyKeyArgument = z
  .string()
  .regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 visible ASCII characters')
  .optional()
  .describe(
    'Optional: a name of your own for this write, such as "batch-3". Send the call again with the same one (after a time-out or a lost connection) and it is written once, and answered as the first time, for 24 hours. Use a new one for each new write.',
  );

/**
 * The Idempotency-Key a tool call sends: the caller's own name for it, kept apart per API key (the API keeps
 * keys per environment, so two agents' "batch-3" must not meet), or, without one, a new key for this call alone.
 * A key made from the arguments instead would collapse writes meant to repeat (an answer changed 3, 4, then 3
 * again; a second assessment the same day).
 */
export function idempotencyKeyOf(apiKeyId: string, given: string | undefined): string {
  return given === undefined ? `mcp:${apiKeyId}:${randomUUID()}` : `mcp:${apiKeyId}:${given}`;
}
