import type { ProfileRescored, ScoringCompleted } from '../src/domain/assessment.js';
import type { RecordedEvent } from '../src/ports/event-store.js';
import { sealedPart } from '../src/privacy/sealed-part.js';
import type { Projection } from './projection.js';

type Handled = ScoringCompleted | ProfileRescored;

/** What a profile document keeps once its subject is erased: where it came from, nothing personal. */
const SKELETON = ['id', 'subject_id', 'assessment_id', 'scoring_version', 'origin', 'completed_at', 'created_at'] as const;

/**
 * The `profiles` collection (scores and narratives sealed under the subject's key, as `pii`): every profile ever made, one document each, in every scoring version. Which
 * one the API serves for an assessment is decided when it is read (the active scoring version's, else the
 * completion's), so a rebuild's profiles wait here until their version is activated.
 */
export const profilesProjection: Projection = {
  name: 'profiles',
  collection: 'profiles',
  canHandle: ['ScoringCompleted', 'ProfileRescored'],
  documentId: (event) => (event.data as Handled['data']).profile_id,
  erasure: { keep: SKELETON },
  evolve(_current, recorded: RecordedEvent) {
    const { type, data } = recorded as unknown as Handled;
    const skeleton = {
      id: data.profile_id,
      subject_id: data.subject_id,
      assessment_id: data.assessment_id,
      scoring_version: data.scoring_version,
      origin: type === 'ScoringCompleted' ? 'completion' : 'rebuild',
      completed_at: data.completed_at,
      created_at: type === 'ScoringCompleted' ? data.completed_at : (data as ProfileRescored['data']).rescored_at,
    };
    // Scores and narratives stay sealed as the log holds them: the API opens them to answer.
    return { ...skeleton, language: 'en', pii: sealedPart(recorded) };
  },
};
