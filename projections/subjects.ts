import type { ConsentRecorded, SubjectCreated, SubjectErased } from '../src/domain/subject.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';
import type { Projection } from './projection.js';

type Handled = SubjectCreated | ConsentRecorded | SubjectErased;

/**
 * The `subjects` collection: one document a subject, filtered by external_subject_id in lists. A subject
 * is `pending` until its consent is recorded (the next event of the same append) and only then `active`:
 * the API shows active subjects only, so no reader ever sees a subject without its consent. An erased
 * subject keeps only what outlives the erasure: its consent record and the fact and time of erasure.
 */
export const subjectsProjection: Projection = {
  name: 'subjects',
  collection: 'subjects',
  canHandle: ['SubjectCreated', 'ConsentRecorded', 'SubjectErased'],
  documentId: (event) => (event.data as Handled['data']).subject_id,
  evolve(current: Document | undefined, recorded: RecordedEvent): Document {
    const event = recorded as unknown as Handled;
    switch (event.type) {
      case 'SubjectCreated': {
        const { subject_id, created_at, pii } = event.data;
        // Replayed after an erasure, the personal fields read as null; SubjectErased follows.
        return { id: subject_id, external_subject_id: pii?.external_subject_id ?? null, metadata: pii?.metadata ?? {}, consent: null, status: 'pending', created_at };
      }
      case 'ConsentRecorded':
        return { ...current!, consent: event.data.consent, status: 'active' };
      case 'SubjectErased':
        return { id: event.data.subject_id, status: 'erased', consent: current?.consent ?? null, created_at: current?.created_at, erased_at: event.data.erased_at };
    }
  },
};
