import { newId } from '../domain/ids.js';
import type { WebhookEvent } from '../ports/collections.js';

/**
 * The ids a test event names: well-formed, ending in TEST, and of nothing that exists (reading them answers
 * 404), so a receiver can tell a test from a real completion and must not act on it.
 */
export const SAMPLE_IDS = {
  profile_id: 'prf_0000000000000000000000TEST',
  assessment_id: 'asm_0000000000000000000000TEST',
  subject_id: 'sub_0000000000000000000000TEST',
} as const;

/** A sample nature.assessment.completed, shaped as a real one, with its own event id so receivers do not dedupe it away. */
export function testCompletion(now: Date): WebhookEvent {
  return { id: newId('evt'), type: 'nature.assessment.completed', created_at: now.toISOString(), data: { ...SAMPLE_IDS } };
}
