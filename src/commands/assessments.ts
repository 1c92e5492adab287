import {
  type Assessment,
  type AssessmentEvent,
  type AssessmentState,
  type ItemResponse,
  type Language,
  assessmentStream,
  decideAbandonAssessment,
  decideScoreAssessment,
  decideStartAssessment,
  decideSubmitResponses,
  evolveAssessment,
} from '../domain/assessment.js';
import { newId } from '../domain/ids.js';
import { decideOpenAssessment, evolveSubject, initialSubjectState, subjectStream } from '../domain/subject.js';
import type { CommandContext } from './context.js';
import { type EventMetadata, type EventStore, WrongExpectedRevisionError } from '../ports/event-store.js';
import { CURRENT_SCORING_VERSION, scorers } from '../scoring/scorers.js';
import { fold, handleCommand, toNewEvents } from './handle-command.js';
import { READ_YOUR_WRITES_TIMEOUT_MS } from './subjects.js';

const assessmentAggregate = { initial: undefined as AssessmentState, evolve: evolveAssessment };
const subjectAggregate = { initial: initialSubjectState, evolve: evolveSubject };

async function loadAssessment(events: EventStore, assessmentId: string): Promise<AssessmentState> {
  return fold(assessmentAggregate, (await events.readStream(assessmentStream(assessmentId))).events);
}

/**
 * Opens the subject's next assessment: the pointer on the subject's stream first (appended at the
 * subject's revision, so concurrent starts serialise), then the assessment's own stream. A pointer
 * whose stream was never written (a crash between the two) names no open assessment, so it blocks nothing.
 */
export async function startAssessment(
  env: CommandContext,
  subjectId: string,
  requestedLanguage: Language,
  metadata: EventMetadata,
  now: Date,
): Promise<Assessment> {
  for (;;) {
    const subjectRead = await env.events.readStream(subjectStream(subjectId));
    const subject = fold(subjectAggregate, subjectRead.events);
    const currentId = subject.status === 'active' ? subject.current_assessment_id : null;
    const current = currentId === null ? undefined : await loadAssessment(env.events, currentId);
    const assessmentId = newId('asm');
    const opened = decideOpenAssessment(subject, current, { assessment_id: assessmentId, now });
    try {
      await env.events.appendToStream(subjectStream(subjectId), toNewEvents(opened, metadata), subjectRead.revision);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) continue;
      throw error;
    }
    const started = decideStartAssessment({ assessment_id: assessmentId, subject_id: subjectId, requested_language: requestedLanguage, now });
    const appended = await env.events.appendToStream(assessmentStream(assessmentId), toNewEvents(started, metadata), 'no_stream');
    await env.projector.waitFor(appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
    return started.reduce(evolveAssessment, undefined as AssessmentState)!;
  }
}

/** One all-or-nothing batch; concurrent batches on one assessment are retried until each lands. */
export function submitResponses(
  env: CommandContext,
  subjectId: string,
  assessmentId: string,
  responses: ItemResponse[],
  metadata: EventMetadata,
  now: Date,
): Promise<Assessment> {
  return onAssessment(env, assessmentId, (state) => decideSubmitResponses(state, { subject_id: subjectId, responses, now }), metadata);
}

export function abandonAssessment(
  env: CommandContext,
  subjectId: string,
  assessmentId: string,
  metadata: EventMetadata,
  now: Date,
): Promise<Assessment> {
  return onAssessment(env, assessmentId, (state) => decideAbandonAssessment(state, { subject_id: subjectId, now }), metadata);
}

/** Runs a decision on the assessment's stream and answers once the read models show it. */
async function onAssessment(
  env: CommandContext,
  assessmentId: string,
  decide: (state: AssessmentState) => AssessmentEvent[],
  metadata: EventMetadata,
): Promise<Assessment> {
  const result = await handleCommand(env.events, assessmentStream(assessmentId), assessmentAggregate, decide, metadata);
  if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return result.state!;
}

/** Appends ScoringCompleted for an assessment in `scoring`; for any other state it appends nothing. */
export async function scoreAssessment(events: EventStore, assessmentId: string, now: Date): Promise<void> {
  const scorer = scorers[CURRENT_SCORING_VERSION]!;
  const ids = { profile_id: newId('prf'), event_id: newId('evt') };
  await handleCommand(
    events,
    assessmentStream(assessmentId),
    assessmentAggregate,
    (state) => decideScoreAssessment(state, { ...ids, scorer, now }),
    { causation: 'scoring' },
  );
}
