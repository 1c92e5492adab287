import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';

/** The argument every POST and PATCH tool takes: what makes a retry of the call safe. */
export const idempotencyKeyArgument = z
  .string()
  .regex(/^[\x21-\x7e]{1,160}$/, 'must be 1 to 160 visible ASCII characters')
  .optional()
  .describe(
    'Optional: a name of your own for this write, such as "batch-3". Send the call again with the same one (after a time-out or a lost connection) and it is written once, and answered as the first time, for 24 hours. Use a new one for each new write.',
  );

/**
 * The Idempotency-Key a tool call sends: the caller's own name for the write, kept apart per API key (the API keeps
 * keys per environment, so two agents' "batch-3" must not meet) and per target (the tool, subject and assessment,
 * so the next assessment's "batch-3" is another write); without a name, a new key for this call alone. A key made
 * from the arguments instead would collapse writes meant to repeat (an answer changed 3, 4, then 3 again).
 */
export function idempotencyKeyOf(apiKeyId: string, target: string, given: string | undefined): string {
  if (given === undefined) return `mcp:${apiKeyId}:${randomUUID()}`;
  return `mcp:${apiKeyId}:${createHash('sha256').update(target).digest('hex').slice(0, 24)}:${given}`;
}
