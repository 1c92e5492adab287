import type { Environment } from '../domain/api-keys.js';
import {
  type AssessmentLink,
  type AssessmentLinkIdChosen,
  decideCreateLink,
  decideOpenLink,
  decideRevokeLink,
  derivedLinkToken,
  linkClosed,
  linkRequestStream,
  linkStartTag,
  linkStream,
  mintLinkToken,
} from '../domain/assessment-link.js';
import { derivedClientSecret } from '../domain/client-secrets.js';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { EventMetadata, EventStore } from '../ports/event-store.js';
import type { Language } from '../scoring/languages.js';
import { fold, readAggregate } from './aggregate.js';
import { linkAggregate, linkChoiceAggregate } from './aggregates.js';
import { startAssessment } from './assessments.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { handleCommand } from './handle-command.js';

interface CreateLinkInput {
  language: Language;
  result_visible_to_subject: boolean;
  return_url: string | null;
  expires_in_seconds: number;
}

/**
 * Creates a link for the subject (the route has checked that it exists and is not erased). With an
 * Idempotency-Key, its id is chosen on a stream named by the key's tag and its token derived from the tag, so a
 * retry after a crash answers the same link and token; without one the token is random. The raw token is
 * answered here only: the log and the read model keep its hash.
 */
export async function createAssessmentLink(
  env: CommandContext,
  subjectId: string,
  environment: Environment,
  input: CreateLinkInput,
  metadata: EventMetadata,
  now: Date,
): Promise<{ link: AssessmentLink; token: string; replayedAt?: Date }> {
  const tag = metadata.idempotency;
  const linkId = tag === undefined ? newId('lnk') : await chosenLinkId(env.events, tag, metadata, now);
  const token =
    tag === undefined
      ? mintLinkToken(environment, linkId)
      : derivedLinkToken(environment, linkId, await env.dataKeys.environmentSecret(), tag);
  const result = await handleCommand(
    env.events,
    linkStream(linkId),
    linkAggregate,
    (state) => decideCreateLink(state, { link_id: linkId, subject_id: subjectId, token_hash: token.hash, ...input, now }),
    metadata,
    now,
  );
  if (result.appended !== undefined) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return { link: result.state!, token: token.raw, ...(result.replayedAt !== undefined && { replayedAt: result.replayedAt }) };
}

async function chosenLinkId(events: EventStore, tag: string, metadata: EventMetadata, now: Date): Promise<string> {
  const chosen: AssessmentLinkIdChosen = { type: 'AssessmentLinkIdChosen', data: { link_id: newId('lnk') } };
  const { state } = await handleCommand(events, linkRequestStream(tag), linkChoiceAggregate, () => [chosen], metadata, now);
  return state!;
}

async function readLink(events: EventStore, linkId: string): Promise<AssessmentLink | undefined> {
  return fold(linkAggregate, (await readAggregate(events, linkStream(linkId), linkAggregate)).events);
}

/** What opening a link gives the hosted page: its assessment and that assessment's client secret, or why it is closed. */
type Opened = { closed: 'revoked' | 'expired' } | { link: AssessmentLink; assessment_id: string; client_secret: string };

/**
 * Opens a link: the first opening starts the subject's assessment through the start command (so one open
 * assessment per subject, the webhooks and the audit hold as for any start) and binds the link to it; every
 * later opening resumes that assessment. The start runs under the link's own tag, so its client secret is derived
 * from it (derivedClientSecret) and every opening can show the page the same secret, of which only the hash is kept;
 * two openings at once find the same start on the subject's stream (producedBy) and bind the same assessment.
 */
export async function openAssessmentLink(env: CommandContext, linkId: string, metadata: EventMetadata, now: Date) {
  const link = await readLink(env.events, linkId);
  if (link === undefined) throw new DomainError('not_found', `No assessment link ${linkId}.`);
  const closed = linkClosed(link, now);
  if (closed !== undefined) return { closed } satisfies Opened;
  const tag = linkStartTag(linkId);
  let assessmentId = link.assessment_id;
  let bound = link;
  if (assessmentId === null) {
    const { assessment } = await startAssessment(
      env,
      link.subject_id,
      { language: link.language, resultVisible: link.result_visible_to_subject },
      { ...metadata, idempotency: tag },
      now,
    );
    const opened = assessment.id;
    const result = await handleCommand(
      env.events,
      linkStream(linkId),
      linkAggregate,
      (state) => decideOpenLink(state, { link_id: linkId, assessment_id: opened, now }),
      metadata,
      now,
    );
    if (result.appended !== undefined) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
    bound = result.state!;
    assessmentId = bound.assessment_id!;
  }
  const secret = derivedClientSecret(assessmentId, await env.dataKeys.environmentSecret(), tag);
  return { link: bound, assessment_id: assessmentId, client_secret: secret.raw } satisfies Opened;
}

export async function revokeAssessmentLink(
  env: CommandContext,
  linkId: string,
  metadata: EventMetadata,
  now: Date,
): Promise<AssessmentLink> {
  const result = await handleCommand(
    env.events,
    linkStream(linkId),
    linkAggregate,
    (state) => decideRevokeLink(state, { link_id: linkId, now }),
    metadata,
    now,
  );
  if (result.appended !== undefined) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return result.state!;
}
