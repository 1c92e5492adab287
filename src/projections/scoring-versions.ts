import type { ScoringVersionActivated } from '../domain/scoring-versions.js';
import type { CollectionProjection } from '../ports/projection.js';

/** The `scoring_versions` collection: one document, `current`, naming the active version and every one activated. */
export const scoringVersionsProjection: CollectionProjection<ScoringVersionActivated, 'scoring_versions'> = {
  name: 'scoring_versions',
  collection: 'scoring_versions',
  canHandle: ['ScoringVersionActivated'],
  documentId: () => 'current',
  evolve(current, event) {
    const { scoring_version, activated_at } = event.data;
    const activated = current?.activated ?? [];
    return { id: 'current', active: scoring_version, activated: [...new Set([...activated, scoring_version])], activated_at };
  },
};
