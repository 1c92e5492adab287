import type { IndexedField } from '../src/ports/read-models.js';
import { assessmentsProjection } from './assessments.js';
import { profilesProjection } from './profiles.js';
import type { Projection } from './projection.js';
import { subjectsProjection } from './subjects.js';

export const projections: Projection[] = [subjectsProjection, assessmentsProjection, profilesProjection];

/** Fields that lists filter on; each read-model adapter indexes them. */
export const indexedFields: IndexedField[] = [
  { collection: 'subjects', field: 'external_subject_id' },
  { collection: 'assessments', field: 'subject_id' },
  { collection: 'profiles', field: 'subject_id' },
];
