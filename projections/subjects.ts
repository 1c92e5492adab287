import type { ConsentRecorded, SubjectCreated } from '../src/domain/subject.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Document } from '../src/ports/read-models.js';
import type { Projection } from './projection.js';

type Handled = SubjectCreated | ConsentRecorded;

/**
 * The `subjects` collection: one document a subject, filtered by external_subject_id in lists. A subject
 * is `pending` until its consent is recorded (the next event of the same append) and only then `active`:
 * the API shows active subjects only, so no reader ever sees a subject without its consent.
 */
export const subjectsProjection: Projection = {
  name: 'subjects',
  collection: 'subjects',
  canHandle: ['SubjectCreated', 'ConsentRecorded'],
  documentId: (event) => (event.data as Handled['data']).subject_id,
  evolve(current: Document | undefined, recorded: RecordedEvent): Document {
    const event = recorded as unknown as Handled;
    switch (event.type) {
      case 'SubjectCreated': {
        const { subject_id, created_at, pii } = event.data;
        return { id: subject_id, external_subject_id: pii.external_subject_id, metadata: pii.metadata, consent: null, status: 'pending', created_at };
      }
      case 'ConsentRecorded':
        return { ...current!, consent: event.data.consent, status: 'active' };
    }
  },
};
