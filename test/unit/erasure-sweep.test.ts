import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/ports/event-store.js';
import { assessmentsProjection } from '../../src/projections/assessments.js';
import { profilesProjection } from '../../src/projections/profiles.js';

const recorded = (type: string, data: unknown): RecordedEvent => ({
  id: 'evt_1',
  type,
  data,
  metadata: {},
  streamName: 'subject-sub_1',
  revision: 3n,
  position: 42n,
  recordedAt: '2026-11-28T12:00:00.000Z',
});

describe('the erasure sweep of the projections whose documents name a subject', () => {
  it.each([
    ['assessments', assessmentsProjection, ['id', 'subject_id', 'status', 'created_at', 'expires_at']],
    ['profiles', profilesProjection, ['id', 'subject_id', 'assessment_id', 'scoring_version', 'origin', 'completed_at', 'created_at']],
  ] as const)('blanks every %s document of the erased subject, keeping only what says it existed', (_name, projection, keep) => {
    expect(projection.sweep?.(recorded('SubjectErased', { subject_id: 'sub_1', erased_at: '2026-11-28T12:00:00.000Z' }))).toEqual({
      where: { subject_id: 'sub_1' },
      keep,
      set: { erased: true },
    });
    expect(projection.sweep?.(recorded('SubjectCreated', { subject_id: 'sub_1' }))).toBeUndefined();
  });
});
