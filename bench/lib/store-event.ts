import { randomBytes, randomUUID } from 'node:crypto';

/** An event as every store under test takes it. */
export interface BenchEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, string>;
}

/**
 * Shaped like the service's commonest event, a ResponsesSubmitted of 19 answers: ids beside a sealed
 * `pii` envelope (about 1 KB of base64), so each store writes and parses what the service would.
 */
const data = {
  subject_id: 'sub_01KBENCH0000000000000000000',
  assessment_id: 'asm_01KBENCH0000000000000000000',
  pii: { alg: 'A256GCM', iv: randomBytes(12).toString('base64'), ct: randomBytes(760).toString('base64') },
};
const metadata = { request_id: 'req_01KBENCH0000000000000000000', key_id: 'key_01KBENCH0000000000000000000' };

export function benchEvents(count: number): BenchEvent[] {
  return Array.from({ length: count }, () => ({ id: randomUUID(), type: 'ResponsesSubmitted', data, metadata }));
}
