import { assessmentStream } from '../domain/assessment.js';
import { newId } from '../domain/ids.js';
import {
  decideOutcome,
  decideRequest,
  type SituationalAssessment,
  type SituationalAssessmentCompleted,
  type SituationalAssessmentIdChosen,
  type SituationalAssessmentRequested,
  situationalRequestStream,
  situationalStream,
} from '../domain/situational-assessment.js';
import { type DataKeyStore, SubjectErasedError } from '../ports/data-keys.js';
import type { EventMetadata, EventStore } from '../ports/event-store.js';
import { openPart, sealedPart } from '../privacy/sealed-part.js';
import type { Language } from '../scoring/languages.js';
import { SITUATIONAL_METHOD_VERSION } from '../situational/alignment.js';
import { analyseSituation, type ProfileScores } from '../situational/analysis.js';
import { readAggregate } from './aggregate.js';
import { situationalAggregate, situationalChoiceAggregate } from './aggregates.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { handleCommand } from './handle-command.js';

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
): Promise<{ assessment: SituationalAssessment; replayedAt?: Date }> {
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
  return { assessment: result.state!, ...(result.replayedAt && { replayedAt: result.replayedAt }) };
}

async function chosenId(events: EventStore, tag: string, metadata: EventMetadata, now: Date): Promise<string> {
  const chosen: SituationalAssessmentIdChosen = {
    type: 'SituationalAssessmentIdChosen',
    data: { situational_assessment_id: newId('sit') },
  };
  const { state } = await handleCommand(events, situationalRequestStream(tag), situationalChoiceAggregate, () => [chosen], metadata, now);
  return state!;
}

/**
 * Reads a pending request against its profile and records the outcome, once: appended at the stream's revision, so
 * a second reader (a restart, a replay, another leader) decides nothing. A request whose subject was erased reads
 * as nothing (its text and profile are unreadable) and stays as it is; its documents answer 410.
 */
export async function completeSituationalAssessment(
  env: { events: EventStore; dataKeys: DataKeyStore },
  id: string,
  now: Date,
): Promise<void> {
  const stream = situationalStream(id);
  const read = await readAggregate(env.events, stream, situationalAggregate);
  const request = read.events.find(
    (event): event is typeof event & SituationalAssessmentRequested => event.type === 'SituationalAssessmentRequested',
  );
  if (request === undefined || read.events.length > 1 || request.data.pii === null) return;
  const { subject_id, profile_id, assessment_id, language, pii } = request.data;
  const scores = await profileScores(env, subject_id, assessment_id, profile_id);
  if (scores === undefined) return;
  const outcome = analyseSituation(pii.situation_context, language, scores);
  const completed: SituationalAssessmentCompleted = {
    type: 'SituationalAssessmentCompleted',
    data: {
      situational_assessment_id: id,
      subject_id,
      event_id: newId('evt'),
      status: outcome.status,
      ...(outcome.status === 'failed' && { failure_code: outcome.failure_code }),
      method_version: SITUATIONAL_METHOD_VERSION,
      completed_at: now.toISOString(),
      pii: outcome.status === 'completed' ? { result: outcome.result } : null,
    },
  };
  try {
    await handleCommand(
      env.events,
      stream,
      situationalAggregate,
      (state) => decideOutcome(state, completed),
      { causation: 'situational' },
      now,
    );
  } catch (error) {
    // Erased between the read and the append: its key is gone, and nothing personal is written for it again.
    if (error instanceof SubjectErasedError) return;
    throw error;
  }
}

/** The profile's scores, opened from the assessment's stream (the log keeps them sealed); undefined once the subject is erased. */
async function profileScores(
  env: { events: EventStore; dataKeys: DataKeyStore },
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
