import { scoreAssessment } from '../commands/assessments.js';
import type { ResponsesSubmitted } from '../domain/assessment.js';
import type { EventStore } from '../ports/event-store.js';
import type { Reactor } from '../ports/projection.js';

/**
 * Scores, with the server's scoring version, an assessment left waiting in `scoring` by an earlier version,
 * which recorded the last answer and scored it in two appends (a server could die in between). A batch that
 * says how many items are answered was recorded by the command that scores the last answer in the same
 * append, so it is passed over without reading anything. The scoring command appends at the assessment's
 * revision and decides nothing for an assessment already scored, so a restart or a replay scores once.
 */
export function scoringReactor(events: EventStore, scoringVersion: string, clock: () => Date): Reactor<ResponsesSubmitted> {
  return {
    name: 'scoring',
    canHandle: ['ResponsesSubmitted'],
    acts: (event) => event.data.responses_received === undefined,
    async react(event) {
      await scoreAssessment(events, event.data.assessment_id, scoringVersion, clock());
    },
  };
}
