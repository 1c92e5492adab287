import { DomainError, subjectErasedError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import {
  type Consent,
  decideClaimExternalId,
  decideCreateSubject,
  decideEraseSubject,
  decideReleaseExternalId,
  evolveSubject,
  externalIdStream,
  initialSubjectState,
  type ReservationEvent,
  type SubjectErased,
  type SubjectState,
  subjectStream,
} from '../domain/subject.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import type { EventMetadata, EventStore, ExpectedRevision, Recorded } from '../ports/event-store.js';
import { expectedAfter, fold, readAggregate } from './aggregate.js';
import { reservationAggregate, subjectAggregate } from './aggregates.js';
import { closeForErasure } from './assessments.js';
import { READ_AGAIN, retryOnConflict } from './conflict-retry.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { handleCommand, toNewEvents } from './handle-command.js';
import { producedBy } from './idempotent-retry.js';

export interface CreateSubjectInput {
  external_subject_id: string;
  metadata: Record<string, string>;
  consent: Consent;
}

/**
 * Creates a subject whose external_subject_id is unique in the environment: the claim on the id's reservation
 * stream (appended at the stream's revision, so one claim wins) and the subject's stream, in one unit. A store
 * without transactions across streams writes the claim first: a claim whose subject stream was never written (a
 * crash between the two appends) is completed by the next create with that id. A claim still held by an erased
 * subject is released and claimed anew.
 */
export async function createSubject(
  env: CommandContext,
  input: CreateSubjectInput,
  metadata: EventMetadata,
  now: Date,
): Promise<Extract<SubjectState, { status: 'active' }>> {
  const reservation = externalIdStream(input.external_subject_id, await env.dataKeys.environmentSecret());
  return retryOnConflict(async () => {
    const claim = await readAggregate(env.events, reservation, reservationAggregate);
    // A retry of a create that claimed the id before a crash: its subject, even one erased (and the id released) since.
    let subjectId = await claimedEarlier(env.events, claim.events, metadata, now);
    subjectId ??= fold(reservationAggregate, claim.events);
    if (subjectId === undefined) return createClaimed(env, { reservation, expected: expectedAfter(claim) }, input, metadata, now);
    const id = subjectId;
    try {
      const result = await handleCommand(
        env.events,
        subjectStream(id),
        subjectAggregate,
        (state) => decideCreateSubject(state, { subject_id: id, ...input, event_id: newId('evt'), now: now.toISOString() }),
        metadata,
        now,
      );
      if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
      if (result.state.status !== 'active') throw new Error('subject creation left no subject');
      return result.state;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'subject_erased')) throw error;
      // The id is still held by an erased subject: freed, it is claimed anew.
      await releaseReservation(env.events, reservation, id, now);
      return READ_AGAIN;
    }
  });
}

/** A new subject and the claim of its external id, in one unit; its answer waits until the read models hold it. */
async function createClaimed(
  env: CommandContext,
  { reservation, expected }: { reservation: string; expected: ExpectedRevision },
  input: CreateSubjectInput,
  metadata: EventMetadata,
  now: Date,
): Promise<Extract<SubjectState, { status: 'active' }>> {
  const subjectId = newId('sub');
  const claimed = decideClaimExternalId(undefined, { subject_id: subjectId });
  const created = decideCreateSubject(initialSubjectState, {
    subject_id: subjectId,
    ...input,
    event_id: newId('evt'),
    now: now.toISOString(),
  });
  const [, appended] = await env.events.appendToStreams([
    { streamName: reservation, events: toNewEvents(claimed, metadata), expected },
    { streamName: subjectStream(subjectId), events: toNewEvents(created, metadata), expected: 'no_stream' },
  ]);
  await env.projector.waitFor(appended!.position, READ_YOUR_WRITES_TIMEOUT_MS);
  const state = created.reduce(evolveSubject, initialSubjectState);
  if (state.status !== 'active') throw new Error('subject creation left no subject');
  return state;
}

/**
 * The subject an earlier run of this request (found by its Idempotency-Key's tag) claimed the id for; a subject
 * erased since answers 410, as the key's stored answer would.
 */
async function claimedEarlier(
  events: EventStore,
  reservation: readonly Recorded<ReservationEvent>[],
  metadata: EventMetadata,
  now: Date,
): Promise<string | undefined> {
  const earlier = producedBy(reservation, metadata, now);
  if (earlier === undefined) return undefined;
  const { subject_id } = reservation[earlier.first]!.data;
  const subject = fold(subjectAggregate, (await readAggregate(events, subjectStream(subject_id), subjectAggregate)).events);
  if (subject.status === 'erased') throw subjectErasedError(subject.id, subject.erased_at);
  return subject_id;
}

/**
 * Erases a subject: its open assessment closed first (closeForErasure), then SubjectErased on its stream at the
 * revision it was read at (serialised with its other commands: an assessment opened meanwhile makes it start
 * again and close that one too), then its data key is destroyed and its external id released. So no event of
 * the subject lands after SubjectErased. Its documents go from the read models as the projector applies the
 * event; the answer waits for that.
 */
export async function eraseSubject(
  env: CommandContext,
  subjectId: string,
  metadata: EventMetadata,
  now: Date,
): Promise<SubjectErased['data']> {
  const secret = await env.dataKeys.environmentSecret();
  const { erased, appended } = await retryOnConflict(async () => {
    const read = await readAggregate(env.events, subjectStream(subjectId), subjectAggregate);
    const state = fold(subjectAggregate, read.events);
    const reservation = state.status === 'active' && state.pii !== null ? externalIdStream(state.pii.external_subject_id, secret) : null;
    const decided = decideEraseSubject(state, { reservation, event_id: newId('evt'), now });
    const pointer = state.status === 'active' ? state.current_assessment : null;
    if (pointer !== null) await closeForErasure(env.events, pointer, metadata, now);
    const appended = await env.events.appendToStream(subjectStream(subjectId), toNewEvents(decided, metadata), read.revision);
    return { erased: (decided[0] as SubjectErased).data, appended };
  });
  await completeErasure(env, erased);
  await env.projector.waitFor(appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return erased;
}

/** What follows SubjectErased, idempotent: the erasure reactor runs it again after a crash in between. */
export async function completeErasure(env: { events: EventStore; dataKeys: DataKeyStore }, erased: SubjectErased['data']): Promise<void> {
  await env.dataKeys.destroy(erased.subject_id, erased.erased_at);
  if (erased.reservation !== null) await releaseReservation(env.events, erased.reservation, erased.subject_id, new Date(erased.erased_at));
}

/** Releases the reservation if this subject still holds it. */
async function releaseReservation(events: EventStore, reservation: string, subjectId: string, now: Date): Promise<void> {
  await handleCommand(
    events,
    reservation,
    reservationAggregate,
    (holder) => decideReleaseExternalId(holder, { subject_id: subjectId, now: now.toISOString() }),
    { causation: 'erasure' },
    now,
  );
}
