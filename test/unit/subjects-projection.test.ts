import { describe, expect, it } from 'vitest';
import { subjectsProjection } from '../../projections/subjects.js';
import type { RecordedEvent } from '../../src/ports/event-store.js';

const recorded = (type: string, data: unknown, revision: bigint): RecordedEvent => ({
  id: `e-${revision}`,
  type,
  data,
  metadata: {},
  streamName: 'subject-sub_1',
  revision,
  position: revision + 1n,
  recordedAt: '2026-11-21T10:00:00.000Z',
});

describe('subjects projection', () => {
  it('keeps a subject pending until its consent is recorded, then active with it', () => {
    const created = subjectsProjection.evolve(
      undefined,
      recorded('SubjectCreated', { subject_id: 'sub_1', created_at: '2026-11-21T10:00:00.000Z', pii: { external_subject_id: 'e-1', metadata: {} } }, 0n),
    );
    expect(created).toMatchObject({ id: 'sub_1', status: 'pending', consent: null });
    const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };
    const active = subjectsProjection.evolve(created!, recorded('ConsentRecorded', { subject_id: 'sub_1', recorded_at: '2026-11-21T10:00:00.000Z', consent }, 1n));
    expect(active).toMatchObject({ status: 'active', consent });
  });
});
