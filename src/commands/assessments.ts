import {
  type Assessment,
  type AssessmentEvent,
  type AssessmentPointer,
  type AssessmentState,
  type ItemResponse,
  type Language,
  assessmentStream,
  decideAbandonAssessment,
  decideRescore,
  decideScoreAssessment,
  decideStartAssessment,
  decideSubmitResponses,
  evolveAssessment,
} from '../domain/assessment.js';
import { newId } from '../domain/ids.js';
import { decideOpenAssessment, evolveSubject, initialSubjectState, subjectStream } from '../domain/subject.js';
import type { CommandContext } from './context.js';
import { type EventMetadata, type EventStore, WrongExpectedRevisionError } from '../ports/event-store.js';
import { SubjectErasedError } from '../ports/data-keys.js';
import { scorers } from '../scoring/scorers.js';
import { SCORING_VERSIONS_STREAM, activeVersion } from '../domain/scoring-versions.js';
import { type CommandResult, fold, handleCommand, toNewEvents } from './handle-command.js';
import { READ_YOUR_WRITES_TIMEOUT_MS } from './subjects.js';

const assessmentAggregate = { initial: undefined as AssessmentState, evolve: evolveAssessment };
const subjectAggregate = { initial: initialSubjectState, evolve: evolveSubject };

async function loadAssessment(events: EventStore, assessmentId: string): Promise<AssessmentState> {
  return fold(assessmentAggregate, (await events.readStream(assessmentStream(assessmentId))).events);
}

/**
 * Opens the subject's next assessment: the pointer on the subject's stream first (appended at the
 * subject's revision, so concurrent starts serialise), then the assessment's own stream. A pointer whose
 * stream is not written yet (a start under way, or one that crashed between the two appends) is
 * completed here before deciding, so it counts as the open assessment it is.
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
    const pointer = subject.status === 'active' ? subject.current_assessment : null;
    const current = pointer === null ? undefined : await loadAssessment(env.events, pointer.assessment_id);
    if (pointer !== null && current === undefined) {
      await writeStarted(env.events, pointer, metadata);
      continue;
    }
    const opened = decideOpenAssessment(subject, current, { assessment_id: newId('asm'), requested_language: requestedLanguage, now });
    try {
      await env.events.appendToStream(subjectStream(subjectId), toNewEvents(opened, metadata), subjectRead.revision);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) continue;
      throw error;
    }
    const pointed = opened[0]!.data as AssessmentPointer;
    await writeStarted(env.events, pointed, metadata);
    const stream = await env.events.readStream(assessmentStream(pointed.assessment_id));
    await env.projector.waitFor(stream.events.at(-1)!.position, READ_YOUR_WRITES_TIMEOUT_MS);
    return fold(assessmentAggregate, stream.events)!;
  }
}

/** Writes the pointed-to assessment's first event unless someone already has (it is the same event). */
async function writeStarted(events: EventStore, pointer: AssessmentPointer, metadata: EventMetadata): Promise<void> {
  try {
    await events.appendToStream(assessmentStream(pointer.assessment_id), toNewEvents(decideStartAssessment(pointer), metadata), 'no_stream');
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
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

/**
 * Appends ScoringCompleted, scored with `version`, for an assessment in `scoring`; for any other state it
 * appends nothing. An erased subject's assessment is never scored.
 */
export async function scoreAssessment(events: EventStore, assessmentId: string, version: string, now: Date): Promise<void> {
  const scorer = scorers[version]!;
  const ids = { profile_id: newId('prf'), event_id: newId('evt') };
  await unlessErased(
    handleCommand(events, assessmentStream(assessmentId), assessmentAggregate, (state) => decideScoreAssessment(state, { ...ids, scorer, now }), {
      causation: 'scoring',
    }),
  );
}

/** The scoring version the API serves profiles in, if a rebuild ever activated one. */
export async function activeScoringVersion(events: EventStore): Promise<string | undefined> {
  return activeVersion((await events.readStream(SCORING_VERSIONS_STREAM)).events);
}

/**
 * Gives a completed assessment a profile in `version` unless it has one (a rebuild's step, or the
 * catch-up for a completion scored with another version after the switch); with `notify`, announces a
 * changed profile once. Undefined for an erased subject's assessment.
 */
export async function rescoreAssessment(
  events: EventStore,
  assessmentId: string,
  command: { scoring_version: string; active_version: string | undefined; notify: boolean; now: Date; causation: string },
): Promise<CommandResult<AssessmentState, AssessmentEvent> | undefined> {
  const ids = { profile_id: newId('prf'), event_id: newId('evt') };
  return unlessErased(
    handleCommand(
      events,
      assessmentStream(assessmentId),
      assessmentAggregate,
      (state) => decideRescore(state, { ...command, ...ids, scorerOf: (version) => scorers[version]! }),
      { causation: command.causation },
    ),
  );
}

/** A command on an erased subject's assessment (its key destroyed while it ran) has nothing left to do. */
async function unlessErased<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SubjectErasedError) return undefined;
    throw error;
  }
}
