import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ConsentRecorded,
  type ExternalIdClaimed,
  externalIdRef,
  externalIdStream,
  type SubjectCreated,
  type SubjectErased,
} from '../../src/domain/subject.js';
import type { SubjectDocument } from '../../src/ports/collections.js';
import type { Recorded } from '../../src/ports/event-store.js';
import { seal } from '../../src/privacy/pii-envelope.js';
import { openPart } from '../../src/privacy/sealed-part.js';
import { subjectsProjection } from '../../src/projections/subjects.js';

type Handled = ExternalIdClaimed | SubjectCreated | ConsentRecorded | SubjectErased;

/** As the log holds it: a SubjectCreated's `pii` sealed, or (to be refused) not. */
const recorded = (type: Handled['type'], data: unknown, revision: bigint, streamName = 'subject-sub_1') =>
  ({
    id: `e-${revision}`,
    type,
    data,
    metadata: {},
    streamName,
    revision,
    position: revision + 1n,
    recordedAt: '2026-11-21T10:00:00.000Z',
  }) as Recorded<Handled>;

const key = randomBytes(32);
const secret = randomBytes(32);
const pii = { external_subject_id: 'emp-0042', metadata: { cohort: 'spring' } };
const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };

describe('subjects projection', () => {
  const claimed = subjectsProjection.evolve(
    undefined,
    recorded('ExternalIdClaimed', { subject_id: 'sub_1' }, 0n, externalIdStream(pii.external_subject_id, secret)),
  );
  const created = subjectsProjection.evolve(
    claimed!,
    recorded('SubjectCreated', { subject_id: 'sub_1', created_at: '2026-11-21T10:00:00.000Z', pii: seal(key, pii, 'sub_1', 'e-1') }, 1n),
  );

  it('keeps a subject pending until its consent is recorded, then active with it', () => {
    expect(claimed).toMatchObject({ id: 'sub_1', status: 'claimed' });
    expect(created).toMatchObject({ id: 'sub_1', status: 'pending', consent: null });
    const active = subjectsProjection.evolve(
      created!,
      recorded('ConsentRecorded', { subject_id: 'sub_1', recorded_at: '2026-11-21T10:00:00.000Z', consent }, 2n),
    );
    expect(active).toMatchObject({ status: 'active', consent });
  });

  it('keeps the external id and metadata sealed as the log holds them, findable by the keyed hash of the external id', () => {
    expect(JSON.stringify(created)).not.toContain('emp-0042');
    expect(JSON.stringify(created)).not.toContain('spring');
    const pending = created as Extract<SubjectDocument, { status: 'pending' }>;
    expect(pending.external_ref).toBe(externalIdRef('emp-0042', secret));
    expect(openPart(key, 'sub_1', pending.pii)).toEqual(pii);
    // Bound to its subject: another subject's key or id opens nothing.
    expect(() => openPart(key, 'sub_2', pending.pii)).toThrow();
  });

  it('refuses personal data that reached the log unsealed, rather than copy it in plain text', () => {
    expect(() =>
      subjectsProjection.evolve(
        undefined,
        recorded('SubjectCreated', { subject_id: 'sub_1', created_at: '2026-11-21T10:00:00.000Z', pii }, 1n),
      ),
    ).toThrow(/not sealed/);
  });

  it('keeps only the consent and the time of erasure once the subject is erased', () => {
    const erased = subjectsProjection.evolve(
      created!,
      recorded('SubjectErased', { subject_id: 'sub_1', erased_at: '2026-11-22T00:00:00.000Z', reservation: null }, 3n),
    );
    expect(erased).toEqual({
      id: 'sub_1',
      status: 'erased',
      consent: null,
      created_at: '2026-11-21T10:00:00.000Z',
      erased_at: '2026-11-22T00:00:00.000Z',
    });
    // A claim replayed after it changes nothing.
    expect(subjectsProjection.evolve(erased!, recorded('ExternalIdClaimed', { subject_id: 'sub_1' }, 4n, 'subject_ref-ab'))).toEqual(
      erased,
    );
  });
});
