import { scoreAssessment } from '../src/commands/assessments.js';
import type { ResponsesSubmitted } from '../src/domain/assessment.js';
import type { EventStore } from '../src/ports/event-store.js';
import type { Reactor } from './projection.js';

/**
 * Scores an assessment with the server's scoring version once its 76th distinct item is answered. The
 * scoring command appends at the assessment's revision and decides nothing for an assessment already
 * scored, so a restart or a replay of the same batch scores once.
 */
export function scoringReactor(events: EventStore, scoringVersion: string, clock: () => Date): Reactor {
  return {
    name: 'scoring',
    canHandle: ['ResponsesSubmitted'],
    async react(event) {
      await scoreAssessment(events, (event.data as ResponsesSubmitted['data']).assessment_id, scoringVersion, clock());
    },
  };
}
