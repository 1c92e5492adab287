import {
  type Assessment,
  type AssessmentEvent,
  type AssessmentPointer,
  type AssessmentState,
  assessmentStream,
  decideAbandonAssessment,
  decideCloseForErasure,
  decideExpireAssessment,
  decideRescore,
  decideScoreAssessment,
  decideStartAssessment,
  decideSubmitResponses,
  evolveAssessment,
  type ItemResponse,
  type ScoringCommand,
} from '../domain/assessment.js';
import { derivedClientSecret, mintClientSecret } from '../domain/client-secrets.js';
import { newId } from '../domain/ids.js';
import { SCORING_VERSIONS_STREAM } from '../domain/scoring-versions.js';
import { decideOpenAssessment, type SubjectEvent, subjectStream } from '../domain/subject.js';
import { SubjectErasedError } from '../ports/data-keys.js';
import { type EventMetadata, type EventStore, WrongExpectedRevisionError } from '../ports/event-store.js';
import type { Language } from '../scoring/languages.js';
import { scorers } from '../scoring/scorers.js';
import { fold, readAggregate } from './aggregate.js';
import { assessmentAggregate, scoringVersionsAggregate, subjectAggregate } from './aggregates.js';
import { appendOnce } from './append-once.js';
import { READ_AGAIN, retryOnConflict } from './conflict-retry.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { type CommandResult, handleCommand, toNewEvents } from './handle-command.js';
import { producedBy } from './idempotent-retry.js';

async function loadAssessment(events: EventStore, assessmentId: string): Promise<AssessmentState> {
  return fold(assessmentAggregate, (await readAggregate(events, assessmentStream(assessmentId), assessmentAggregate)).events);
}

/**
 * Opens the subject's next assessment: the pointer on the subject's stream (appended at the subject's
 * revision, so concurrent starts serialise) and the assessment's own stream, in one unit. A store without
 * transactions across streams writes the pointer first: a pointer whose stream is not written yet (a start
 * under way, or one that crashed between the two appends) is completed here before deciding, so it counts
 * as the open assessment it is. A start with an
 * Idempotency-Key mints its client secret from the key (derivedClientSecret): a retry after a crash finds
 * the pointer it wrote and answers the same assessment and secret.
 */
export async function startAssessment(
  env: CommandContext,
  subjectId: string,
  { language: requestedLanguage, resultVisible }: { language: Language; resultVisible: boolean },
  metadata: EventMetadata,
  now: Date,
): Promise<{ assessment: Assessment; client_secret: string; replayedAt?: Date }> {
  const secretFor = async (assessmentId: string) =>
    metadata.idempotency === undefined
      ? mintClientSecret(assessmentId)
      : derivedClientSecret(assessmentId, await env.dataKeys.environmentSecret(), metadata.idempotency);
  return retryOnConflict(async () => {
    const subjectRead = await readAggregate(env.events, subjectStream(subjectId), subjectAggregate);
    const earlier = producedBy(subjectRead.events, metadata, now);
    if (earlier !== undefined) {
      const pointed = pointerOf(subjectRead.events[earlier.first]!);
      const assessment = await started(env, pointed, metadata);
      return { assessment, client_secret: (await secretFor(pointed.assessment_id)).raw, replayedAt: earlier.at };
    }
    const subject = fold(subjectAggregate, subjectRead.events);
    const pointer = subject.status === 'active' ? subject.current_assessment : null;
    const current = pointer === null ? undefined : await loadAssessment(env.events, pointer.assessment_id);
    if (pointer !== null && current === undefined) {
      await writeStarted(env.events, pointer, metadata);
      return READ_AGAIN;
    }
    const assessmentId = newId('asm');
    const secret = await secretFor(assessmentId);
    const opened = decideOpenAssessment(subject, current, {
      assessment_id: assessmentId,
      requested_language: requestedLanguage,
      client_secret_hash: secret.hash,
      result_visible_to_subject: resultVisible,
      event_id: newId('evt'),
      now,
    });
    const pointed = pointerOf(opened[0]!);
    const first = decideStartAssessment(pointed);
    const appended = await env.events
      .appendToStreams([
        { streamName: subjectStream(subjectId), events: toNewEvents(opened, metadata), expected: subjectRead.revision },
        { streamName: assessmentStream(assessmentId), events: toNewEvents(first, metadata), expected: 'no_stream' },
      ])
      .then(
        ([, started]) => started!,
        (error: unknown) => {
          // Appended in sequence (EventStoreDB), another start may have completed the new pointer first: the same event.
          if (error instanceof WrongExpectedRevisionError && error.streamName === assessmentStream(assessmentId)) return undefined;
          throw error;
        },
      );
    if (appended === undefined) return { assessment: await started(env, pointed, metadata), client_secret: secret.raw };
    await env.projector.waitFor(appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
    return { assessment: fold(assessmentAggregate, first)!, client_secret: secret.raw };
  });
}

/** The pointer a start appended to the subject's stream. */
function pointerOf(event: SubjectEvent): AssessmentPointer {
  if (event.type !== 'AssessmentOpened') throw new Error(`a start appended ${event.type}, not AssessmentOpened`);
  return event.data;
}

/** Writes the pointed-to assessment's first event unless written, and answers the assessment as that event left it. */
async function started(env: CommandContext, pointed: AssessmentPointer, metadata: EventMetadata): Promise<Assessment> {
  await writeStarted(env.events, pointed, metadata);
  const first = (await readAggregate(env.events, assessmentStream(pointed.assessment_id), assessmentAggregate)).events[0]!;
  await env.projector.waitFor(first.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return fold(assessmentAggregate, [first])!;
}

/**
 * Closes the subject's current assessment for its erasure, if still open: written at the assessment's revision,
 * so a batch decided on the open assessment conflicts, decides again and is refused (410) instead of landing
 * after the erasure. A pointer whose stream is not written yet gets its first event first.
 */
export async function closeForErasure(events: EventStore, pointer: AssessmentPointer, metadata: EventMetadata, now: Date): Promise<void> {
  await writeStarted(events, pointer, metadata);
  await handleCommand(
    events,
    assessmentStream(pointer.assessment_id),
    assessmentAggregate,
    (state) => decideCloseForErasure(state, { event_id: newId('evt'), now }),
    metadata,
    now,
  );
}

/** Writes the pointed-to assessment's first event unless someone already has (it is the same event). */
async function writeStarted(events: EventStore, pointer: AssessmentPointer, metadata: EventMetadata): Promise<void> {
  await appendOnce(events, assessmentStream(pointer.assessment_id), decideStartAssessment(pointer), metadata);
}

/** What the assessment commands need of their environment: the command context and the version that scores completions. */
export interface AssessmentContext extends CommandContext {
  scoringVersion: string;
}

/**
 * One all-or-nothing batch; concurrent batches on one assessment are retried until each lands. The batch
 * that completes the answers appends its scoring with it. The answer shows the assessment as the batch left
 * it (`scoring` after the last answer, as the API documents), though the read models already show it scored.
 */
export async function submitResponses(
  env: AssessmentContext,
  subjectId: string,
  assessmentId: string,
  responses: ItemResponse[],
  metadata: EventMetadata,
  now: Date,
): Promise<{ assessment: Assessment; replayedAt?: Date }> {
  const scoring = scoringWith(env.scoringVersion, now);
  const { decidedOn, events, replayedAt } = await onAssessment(
    env,
    assessmentId,
    (current) => decideSubmitResponses(current, { subject_id: subjectId, responses, now, scoring }),
    metadata,
    now,
  );
  const submitted = events.filter((event) => event.type === 'ResponsesSubmitted');
  return { assessment: submitted.reduce(evolveAssessment, decidedOn)!, replayedAt };
}

export async function abandonAssessment(
  env: CommandContext,
  subjectId: string,
  assessmentId: string,
  metadata: EventMetadata,
  now: Date,
): Promise<Assessment> {
  const { state } = await onAssessment(
    env,
    assessmentId,
    (current) => decideAbandonAssessment(current, { subject_id: subjectId, event_id: newId('evt'), now }),
    metadata,
    now,
  );
  return state!;
}

/** Scoring decided with the last answer is the service's doing, as the audit shows it: without the request's key and id. */
const SCORING_METADATA: EventMetadata = { causation: 'scoring' };

/**
 * A request's command on an assessment (handleCommand), its scoring recorded as the service's; answers once
 * the read models show what it appended.
 */
async function onAssessment(
  env: CommandContext,
  assessmentId: string,
  decide: (state: AssessmentState) => AssessmentEvent[],
  metadata: EventMetadata,
  now: Date,
): Promise<CommandResult<AssessmentState, AssessmentEvent>> {
  const result = await handleCommand(env.events, assessmentStream(assessmentId), assessmentAggregate, decide, metadata, now, (event) =>
    event.type === 'ScoringCompleted' ? SCORING_METADATA : metadata,
  );
  if (result.appended !== undefined && result.replayedAt === undefined)
    await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return result;
}

/** Scoring with `version`, its ids minted only when an assessment is actually scored. */
function scoringWith(version: string, now: Date): () => ScoringCommand {
  const scorer = scorers[version]!;
  return () => ({ profile_id: newId('prf'), event_id: newId('evt'), scorer, now });
}

/**
 * Appends ScoringCompleted, scored with `version`, for an assessment waiting in `scoring`; for any other
 * state it appends nothing. An erased subject's assessment is never scored.
 */
export async function scoreAssessment(events: EventStore, assessmentId: string, version: string, now: Date): Promise<void> {
  const scoring = scoringWith(version, now);
  await unlessErased(
    handleCommand(
      events,
      assessmentStream(assessmentId),
      assessmentAggregate,
      (state) => decideScoreAssessment(state, scoring),
      SCORING_METADATA,
      now,
    ),
  );
}

/** The scoring version the API serves profiles in, if a rebuild ever activated one. */
export async function activeScoringVersion(events: EventStore): Promise<string | undefined> {
  return fold(scoringVersionsAggregate, (await readAggregate(events, SCORING_VERSIONS_STREAM, scoringVersionsAggregate)).events);
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
      command.now,
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

/**
 * Records an open assessment past its expiry as expired (announced as nature.assessment.expired), at its stream's
 * revision: a batch, an abandon or an erasure that lands first leaves nothing to record, and so does a second watch.
 */
export async function expireAssessment(events: EventStore, assessmentId: string, now: Date): Promise<boolean> {
  const result = await handleCommand(
    events,
    assessmentStream(assessmentId),
    assessmentAggregate,
    (state) => decideExpireAssessment(state, { event_id: newId('evt'), now }),
    { causation: 'expiry' },
    now,
  );
  return result.appended !== undefined;
}
