import { assessmentStream } from '../domain/assessment.js';
import { newId } from '../domain/ids.js';
import {
  decideOutcome,
  decideRecompute,
  decideRequest,
  type SituationalAssessment,
  type SituationalAssessmentCompleted,
  type SituationalAssessmentEvent,
  type SituationalAssessmentIdChosen,
  type SituationalAssessmentRecomputed,
  type SituationalAssessmentRequested,
  type SituationalAssessmentState,
  situationalRequestStream,
  situationalStream,
} from '../domain/situational-assessment.js';
import { type DataKeyStore, SubjectErasedError } from '../ports/data-keys.js';
import type { EventMetadata, EventStore } from '../ports/event-store.js';
import { openPart, sealedPart } from '../privacy/sealed-part.js';
import type { Language } from '../scoring/languages.js';
import { SITUATIONAL_METHOD_VERSION } from '../situational/alignment.js';
import type { ProfileScores, SituationalOutcome } from '../situational/analysis.js';
import { situationalMethods } from '../situational/methods.js';
import { fold, readAggregate } from './aggregate.js';
import { situationalAggregate, situationalChoiceAggregate } from './aggregates.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { handleCommand } from './handle-command.js';

/** What reading a request needs: the log (opened) and the subjects' keys. */
export interface SituationalEnv {
  events: EventStore;
  dataKeys: DataKeyStore;
}

export interface SituationalRequest {
  subjectId: string;
  profileId: string;
  assessmentId: string;
  language: Language;
  text: string;
}

/**
 * Records a request (202: it is read later, on the leader). With an Idempotency-Key, the id is chosen on a stream
 * named by the key's tag first, so a retry after a crash finds that request and answers it instead of making another.
 */
export async function requestSituationalAssessment(
  env: CommandContext,
  request: SituationalRequest,
  metadata: EventMetadata,
  now: Date,
): Promise<SituationalAssessment> {
  const id = metadata.idempotency === undefined ? newId('sit') : await chosenId(env.events, metadata.idempotency, metadata, now);
  const requested: SituationalAssessmentRequested = {
    type: 'SituationalAssessmentRequested',
    data: {
      situational_assessment_id: id,
      subject_id: request.subjectId,
      profile_id: request.profileId,
      assessment_id: request.assessmentId,
      language: request.language,
      created_at: now.toISOString(),
      pii: { situation_context: request.text },
    },
  };
  const result = await handleCommand(
    env.events,
    situationalStream(id),
    situationalAggregate,
    (state) => decideRequest(state, requested),
    metadata,
    now,
  );
  if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return result.state!;
}

async function chosenId(events: EventStore, tag: string, metadata: EventMetadata, now: Date): Promise<string> {
  const chosen: SituationalAssessmentIdChosen = {
    type: 'SituationalAssessmentIdChosen',
    data: { situational_assessment_id: newId('sit') },
  };
  const { state } = await handleCommand(events, situationalRequestStream(tag), situationalChoiceAggregate, () => [chosen], metadata, now);
  return state!;
}

/** A request as the log holds it, opened: what reading it needs, or undefined once its subject is erased. */
async function openedRequest(env: SituationalEnv, id: string) {
  const stream = situationalStream(id);
  const read = await readAggregate(env.events, stream, situationalAggregate);
  const request = read.events.find(
    (event): event is typeof event & SituationalAssessmentRequested => event.type === 'SituationalAssessmentRequested',
  );
  if (request === undefined || request.data.pii === null) return undefined;
  const { subject_id, profile_id, assessment_id, language, pii } = request.data;
  const state = fold(situationalAggregate, read.events);
  return { stream, state, subject_id, profile_id, assessment_id, language, text: pii.situation_context };
}

/** The request read with `method_version`'s method against its profile; undefined once its subject is erased. */
async function readRequest(env: SituationalEnv, request: NonNullable<Awaited<ReturnType<typeof openedRequest>>>, methodVersion: string) {
  const scores = await profileScores(env, request.subject_id, request.assessment_id, request.profile_id);
  return scores === undefined ? undefined : situationalMethods[methodVersion]!(request.text, request.language, scores);
}

/** Appends what `decide` makes of the stream; an erasure between the read and the append writes nothing (its key is gone). */
async function appendUnlessErased(
  env: SituationalEnv,
  stream: string,
  decide: (state: SituationalAssessmentState) => SituationalAssessmentEvent[],
  now: Date,
): Promise<boolean> {
  try {
    const result = await handleCommand(env.events, stream, situationalAggregate, decide, { causation: 'situational' }, now);
    return result.appended !== undefined;
  } catch (error) {
    if (error instanceof SubjectErasedError) return false;
    throw error;
  }
}

/**
 * Reads a pending request against its profile with the current method and records the outcome, once: appended at the
 * stream's revision, so a second reader (a restart, a replay, another leader) decides nothing. A request whose subject
 * was erased reads as nothing (its text and profile are unreadable) and stays as it is; its documents answer 410.
 */
export async function completeSituationalAssessment(env: SituationalEnv, id: string, now: Date): Promise<void> {
  const request = await openedRequest(env, id);
  if (request === undefined || request.state?.status !== 'pending') return;
  const outcome = await readRequest(env, request, SITUATIONAL_METHOD_VERSION);
  if (outcome === undefined) return;
  const completed: SituationalAssessmentCompleted = {
    type: 'SituationalAssessmentCompleted',
    data: {
      situational_assessment_id: id,
      subject_id: request.subject_id,
      event_id: newId('evt'),
      ...outcomeData(outcome),
      method_version: SITUATIONAL_METHOD_VERSION,
      completed_at: now.toISOString(),
    },
  };
  await appendUnlessErased(env, request.stream, (state) => decideOutcome(state, completed), now);
}

/** Reads an outcome again with `methodVersion` unless it was read with it; true if this call recorded it. Never announced. */
export async function recomputeSituationalAssessment(env: SituationalEnv, id: string, methodVersion: string, now: Date): Promise<boolean> {
  const request = await openedRequest(env, id);
  if (request?.state === undefined || request.state.status === 'pending' || request.state.method_version === methodVersion) return false;
  const outcome = await readRequest(env, request, methodVersion);
  if (outcome === undefined) return false;
  const recomputed: SituationalAssessmentRecomputed = {
    type: 'SituationalAssessmentRecomputed',
    data: {
      situational_assessment_id: id,
      subject_id: request.subject_id,
      ...outcomeData(outcome),
      method_version: methodVersion,
      recomputed_at: now.toISOString(),
    },
  };
  return appendUnlessErased(env, request.stream, (state) => decideRecompute(state, recomputed), now);
}

const outcomeData = (outcome: SituationalOutcome) =>
  outcome.status === 'completed'
    ? { status: outcome.status, pii: { result: outcome.result } }
    : { status: outcome.status, failure_code: outcome.failure_code, pii: null };

/** The profile's scores, opened from the assessment's stream (the log keeps them sealed); undefined once the subject is erased. */
async function profileScores(
  env: SituationalEnv,
  subjectId: string,
  assessmentId: string,
  profileId: string,
): Promise<ProfileScores | undefined> {
  const { events } = await env.events.readStream(assessmentStream(assessmentId));
  const scored = events.find(
    (event) =>
      (event.type === 'ScoringCompleted' || event.type === 'ProfileRescored') &&
      (event.data as { profile_id: string }).profile_id === profileId,
  );
  if (scored === undefined) throw new Error(`profile ${profileId} is not in the stream of assessment ${assessmentId}`);
  if ((scored.data as { pii: unknown }).pii === null) return undefined;
  const key = await env.dataKeys.find(subjectId);
  if (key === undefined) return undefined;
  return openPart<{ profile: ProfileScores }>(key, subjectId, sealedPart(scored)).profile;
}
