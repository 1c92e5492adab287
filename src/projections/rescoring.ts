import { activeScoringVersion, rescoreAssessment } from '../commands/assessments.js';
import type { ScoringCompleted } from '../domain/assessment.js';
import type { EventStore } from '../ports/event-store.js';
import type { Reactor } from '../ports/projection.js';

/**
 * Once a rebuild has activated a scoring version, a completion scored with another version (by a server
 * still configured for it) gets a profile in the active version too, announced as nature.profile.updated
 * if it differs. Completions before the switch are the rebuild's own work.
 */
export function rescoringReactor(events: EventStore, clock: () => Date): Reactor<ScoringCompleted> {
  return {
    name: 'rescoring',
    canHandle: ['ScoringCompleted'],
    async react(event) {
      const { assessment_id, scoring_version } = event.data;
      const active = await activeScoringVersion(events);
      if (active === undefined || active === scoring_version) return;
      await rescoreAssessment(events, assessment_id, {
        scoring_version: active,
        active_version: active,
        notify: true,
        now: clock(),
        causation: 'rescoring',
      });
    },
  };
}
