import {
  type ConsentRecorded,
  type ExternalIdClaimed,
  reservationRef,
  type SubjectCreated,
  type SubjectErased,
} from '../src/domain/subject.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';
import { sealedPart } from '../src/privacy/sealed-part.js';
import type { Projection } from './projection.js';

type Handled = ExternalIdClaimed | SubjectCreated | ConsentRecorded | SubjectErased;

/**
 * The `subjects` collection: one document a subject. Its external id and metadata stay sealed (`pii`, opened
 * only to answer a request); lists find a subject by `external_ref`, the keyed hash of its external id that
 * names the reservation the subject claimed before it was created. A subject is `pending` until its consent
 * is recorded (the next event of the same append) and only then `active`: the API shows active subjects
 * only, so no reader ever sees a subject without its consent. An erased subject keeps only what outlives the
 * erasure: its consent record and the fact and time of erasure.
 */
export const subjectsProjection: Projection = {
  name: 'subjects',
  collection: 'subjects',
  canHandle: ['ExternalIdClaimed', 'SubjectCreated', 'ConsentRecorded', 'SubjectErased'],
  documentId: (event) => (event.data as Handled['data']).subject_id,
  evolve(current: Document | undefined, recorded: RecordedEvent): Document | null {
    const event = recorded as unknown as Handled;
    switch (event.type) {
      case 'ExternalIdClaimed':
        // A claim comes first; one made again for a subject already erased changes nothing.
        if (current?.status === 'erased') return current;
        return {
          ...current,
          id: event.data.subject_id,
          external_ref: reservationRef(recorded.streamName),
          status: current?.status ?? 'claimed',
        };
      case 'SubjectCreated': {
        const { subject_id, created_at } = event.data;
        const external_ref = current?.external_ref;
        return {
          id: subject_id,
          ...(external_ref !== undefined && { external_ref }),
          pii: sealedPart(recorded),
          consent: null,
          status: 'pending',
          created_at,
        };
      }
      case 'ConsentRecorded':
        return { ...current!, consent: event.data.consent, status: 'active' };
      case 'SubjectErased':
        return {
          id: event.data.subject_id,
          status: 'erased',
          consent: current?.consent ?? null,
          created_at: current?.created_at,
          erased_at: event.data.erased_at,
        };
    }
  },
};
