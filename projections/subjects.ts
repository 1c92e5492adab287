import type { ConsentRecorded, SubjectCreated } from '../src/domain/subject.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Projection } from './projection.js';

/** Builds the `subjects` collection: one document a subject, filtered by external_subject_id in lists. */
export const subjectsProjection: Projection = {
  name: 'subjects',
  canHandle: ['SubjectCreated', 'ConsentRecorded'],
  handle(event: RecordedEvent) {
    const subject = event as RecordedEvent<SubjectCreated['type'], SubjectCreated['data']> | RecordedEvent<ConsentRecorded['type'], ConsentRecorded['data']>;
    switch (subject.type) {
      case 'SubjectCreated': {
        const { subject_id, created_at, pii } = subject.data;
        return [
          {
            op: 'put',
            collection: 'subjects',
            doc: {
              id: subject_id,
              external_subject_id: pii.external_subject_id,
              metadata: pii.metadata,
              consent: null,
              status: 'active',
              created_at,
            },
          },
        ];
      }
      case 'ConsentRecorded':
        return [{ op: 'merge', collection: 'subjects', id: subject.data.subject_id, patch: { consent: subject.data.consent } }];
    }
  },
};
