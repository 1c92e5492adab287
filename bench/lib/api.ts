import { items } from '../../src/scoring/item-bank.js';

export const BATCH_SIZE = 19;

/** A subject as a caller creates it; `externalId` must be unique in the environment. */
export function subjectBody(externalId: string) {
  return {
    external_subject_id: externalId,
    metadata: { cohort: 'bench', role: 'analyst' },
    consent: { text_version: 'consent-v3', granted_at: '2026-01-01T09:30:00Z', ui_hash: `sha256:${'ab'.repeat(32)}` },
  };
}

/** The 76 answers in 4 batches of 19, a spread of values so every construct scores differently. */
export const answerBatches = Array.from({ length: items.length / BATCH_SIZE }, (_, b) =>
  items.slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE).map((item, i) => ({ item_id: item.id, value: 1 + ((b * BATCH_SIZE + i) % 5) })),
);
