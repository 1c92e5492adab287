import {
  type ConsentRecorded,
  type ExternalIdClaimed,
  reservationRef,
  type SubjectCreated,
  type SubjectErased,
} from '../domain/subject.js';
import type { CollectionProjection } from '../ports/projection.js';
import { sealedPart } from '../privacy/sealed-part.js';

type Handled = ExternalIdClaimed | SubjectCreated | ConsentRecorded | SubjectErased;

/**
 * The `subjects` collection: one document a subject. Its external id and metadata stay sealed (`pii`, opened
 * only to answer a request); lists find a subject by `external_ref`, the keyed hash of its external id that
 * names the reservation the subject claimed before it was created. A subject is `pending` until its consent
 * is recorded (the next event of the same append) and only then `active`: the API shows active subjects
 * only, so no reader ever sees a subject without its consent. An erased subject keeps only what outlives the
 * erasure: its consent record and the fact and time of erasure.
 */
export const subjectsProjection: CollectionProjection<Handled, 'subjects'> = {
  name: 'subjects',
  collection: 'subjects',
  canHandle: ['ExternalIdClaimed', 'SubjectCreated', 'ConsentRecorded', 'SubjectErased'],
  documentId: (event) => event.data.subject_id,
  evolve(current, event) {
    switch (event.type) {
      case 'ExternalIdClaimed': {
        // A claim comes first; one made again for a subject already erased changes nothing.
        if (current?.status === 'erased') return current;
        const claim = { id: event.data.subject_id, external_ref: reservationRef(event.streamName) };
        return current === undefined ? { ...claim, status: 'claimed' } : { ...current, ...claim };
      }
      case 'SubjectCreated': {
        const { subject_id, created_at } = event.data;
        const external_ref = current !== undefined && 'external_ref' in current ? current.external_ref : undefined;
        return {
          id: subject_id,
          ...(external_ref !== undefined && { external_ref }),
          pii: sealedPart(event),
          consent: null,
          status: 'pending',
          created_at,
        };
      }
      case 'ConsentRecorded':
        // Recorded in the append that creates the subject, right after its SubjectCreated.
        if (current?.status !== 'pending' && current?.status !== 'active') return current ?? null;
        return { ...current, consent: event.data.consent, status: 'active' };
      case 'SubjectErased':
        return {
          id: event.data.subject_id,
          status: 'erased',
          consent: current !== undefined && 'consent' in current ? current.consent : null,
          created_at: current !== undefined && 'created_at' in current ? current.created_at : undefined,
          erased_at: event.data.erased_at,
        };
    }
  },
};
