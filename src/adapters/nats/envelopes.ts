import { z } from 'zod';
import type { Delayed } from './delays.js';

/** What the bus's own messages hold on a topic: anything else published there is a poison message. */
const envelope = z.object({
  id: z.string().min(1),
  payload: z.unknown(),
  /** Deliveries before this copy, for a message that came back from the delay levels. */
  deliveries: z.number().int().nonnegative().optional(),
});

export type Envelope = z.infer<typeof envelope>;

const delayed = z.object({
  id: z.string().min(1),
  payload: z.unknown(),
  deliveries: z.number().int().nonnegative(),
  dueAt: z.number().finite(),
  hop: z.number().int().nonnegative(),
  hopUntil: z.number().finite(),
}) satisfies z.ZodType<Delayed>;

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

function decoder<T>(schema: z.ZodType<T>) {
  return (data: Uint8Array): Decoded<T> => {
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
    } catch (error) {
      return { ok: false, reason: `not JSON: ${(error as Error).message}` };
    }
    const parsed = schema.safeParse(json);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, reason: `not a message of this bus: ${z.prettifyError(parsed.error).replace(/\s+/g, ' ')}` };
  };
}

export const decodeEnvelope = decoder(envelope);
export const decodeDelayed = decoder(delayed);

/** What a dead letter keeps of a message that could not be decoded: its text, cut short, for an operator to look at. */
export function undecodable(data: Uint8Array): string {
  const text = Buffer.from(data).toString('utf8');
  return text.length > 1024 ? `${text.slice(0, 1024)}…` : text;
}
