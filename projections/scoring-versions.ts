import type { ScoringVersionActivated } from '../src/domain/scoring-versions.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import type { Projection } from './projection.js';

/** The `scoring_versions` collection: one document, `current`, naming the active version and every one activated. */
export const scoringVersionsProjection: Projection = {
  name: 'scoring_versions',
  collection: 'scoring_versions',
  canHandle: ['ScoringVersionActivated'],
  documentId: () => 'current',
  evolve(current, recorded: RecordedEvent) {
    const { scoring_version, activated_at } = (recorded as unknown as ScoringVersionActivated).data;
    const activated = (current?.activated as string[] | undefined) ?? [];
    return { id: 'current', active: scoring_version, activated: [...new Set([...activated, scoring_version])], activated_at };
  },
};
