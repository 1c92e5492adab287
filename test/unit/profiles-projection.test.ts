import { describe, expect, it } from 'vitest';
import type { ProfileRescored } from '../../src/domain/assessment.js';
import type { Recorded } from '../../src/ports/event-store.js';
import { profilesProjection } from '../../src/projections/profiles.js';

/** A rescoring as the log holds it, its scores sealed (the projection keeps the envelope as it is). */
const rescored = (language?: 'en' | 'fr'): Recorded<ProfileRescored> => ({
  id: 'evt-uuid-1',
  type: 'ProfileRescored',
  streamName: 'assessment-asm_1',
  revision: 5n,
  position: 42n,
  recordedAt: '2026-11-25T10:00:00.000Z',
  metadata: {} as Recorded<ProfileRescored>['metadata'],
  data: {
    assessment_id: 'asm_1',
    subject_id: 'sub_1',
    profile_id: 'prf_2',
    scoring_version: 'mn76-v2',
    replaces_profile_id: 'prf_1',
    ...(language !== undefined && { language }),
    changed: true,
    completed_at: '2026-11-24T10:00:00.000Z',
    rescored_at: '2026-11-25T10:00:00.000Z',
    pii: { alg: 'A256GCM', iv: 'aXY=', ct: 'Y3Q=' } as unknown as ProfileRescored['data']['pii'],
  },
});

describe('the profiles projection', () => {
  it("keeps a rescored profile in its assessment's language", () => {
    expect(profilesProjection.evolve(undefined, rescored('fr'))).toMatchObject({ id: 'prf_2', origin: 'rebuild', language: 'fr' });
  });

  it('reads a rescoring recorded before French existed (no language) as English', () => {
    expect(profilesProjection.evolve(undefined, rescored())).toMatchObject({ id: 'prf_2', origin: 'rebuild', language: 'en' });
  });
});
