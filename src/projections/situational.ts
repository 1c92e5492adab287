import { completeSituationalAssessment } from '../commands/situational.js';
import type { SituationalAssessmentRequested } from '../domain/situational-assessment.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import type { EventStore } from '../ports/event-store.js';
import type { Reactor } from '../ports/projection.js';

/**
 * Reads each requested situation against its profile on the leader and records the outcome. The command appends at
 * the request's revision and decides nothing for one already read, so a restart or a replay reads it once; the
 * publisher announces the outcome from the log.
 */
export function situationalReactor(
  env: { events: EventStore; dataKeys: DataKeyStore },
  clock: () => Date,
): Reactor<SituationalAssessmentRequested> {
  return {
    name: 'situational',
    canHandle: ['SituationalAssessmentRequested'],
    async react(event) {
      await completeSituationalAssessment(env, event.data.situational_assessment_id, clock());
    },
  };
}
