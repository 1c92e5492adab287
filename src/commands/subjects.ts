import { DomainError, subjectErasedError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import {
  type Consent,
  decideCreateSubject,
  decideEraseSubject,
  type ExternalIdClaimed,
  type ExternalIdReleased,
  evolveSubject,
  externalIdStream,
  initialSubjectState,
  type ReservationEvent,
  reservationHolder,
  type SubjectErased,
  type SubjectState,
  subjectStream,
} from '../domain/subject.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../ports/event-store.js';
import { closeForErasure } from './assessments.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { fold, handleCommand, toNewEvents } from './handle-command.js';
import { producedBy } from './idempotent-retry.js';

export interface CreateSubjectInput {
  external_subject_id: string;
  metadata: Record<string, string>;
  consent: Consent;
}

const subjectAggregate = { initial: initialSubjectState, evolve: evolveSubject };

/**
 * Creates a subject whose external_subject_id is unique in the environment. The id is claimed first on
 * its reservation stream (appended at the stream's revision, so one claim wins); the subject's stream
 * follows. A claim whose subject stream was never written (a crash between the two appends) is completed
 * by the next create with that id; a claim still held by an erased subject is released and claimed anew.
 */
export async function createSubject(
  env: CommandContext,
  input: CreateSubjectInput,
  metadata: EventMetadata,
  now: Date,
): Promise<Extract<SubjectState, { status: 'active' }>> {
  const reservation = externalIdStream(input.external_subject_id, await env.dataKeys.environmentSecret());
  for (;;) {
    const claim = await env.events.readStream(reservation);
    // A retry of a create that claimed the id before a crash: its subject, even one erased (and the id released) since.
    let subjectId = await claimedEarlier(env.events, claim.events, metadata, now);
    subjectId ??= reservationHolder(claim.events as unknown as ReservationEvent[]);
    if (subjectId === undefined) {
      subjectId = newId('sub');
      const claimed: ExternalIdClaimed = { type: 'ExternalIdClaimed', data: { subject_id: subjectId } };
      try {
        await env.events.appendToStream(
          reservation,
          toNewEvents([claimed], metadata),
          claim.revision === -1n ? 'no_stream' : claim.revision,
        );
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
    }
    const id = subjectId;
    try {
      const result = await handleCommand(
        env.events,
        subjectStream(id),
        subjectAggregate,
        (state) => decideCreateSubject(state, { subject_id: id, ...input, now: now.toISOString() }),
        metadata,
        now,
      );
      if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
      if (result.state.status !== 'active') throw new Error('subject creation left no subject');
      return result.state;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'subject_erased')) throw error;
      await releaseReservation(env.events, reservation, id, now);
    }
  }
}

/**
 * The subject an earlier run of this request (found by its Idempotency-Key's tag) claimed the id for; a subject
 * erased since answers 410, as the key's stored answer would.
 */
async function claimedEarlier(
  events: EventStore,
  reservation: readonly RecordedEvent[],
  metadata: EventMetadata,
  now: Date,
): Promise<string | undefined> {
  const earlier = producedBy(reservation, metadata, now);
  if (earlier === undefined) return undefined;
  const { subject_id } = reservation[earlier.first]!.data as ExternalIdClaimed['data'];
  const subject = fold(subjectAggregate, (await events.readStream(subjectStream(subject_id))).events);
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
  for (let attempt = 1; ; attempt++) {
    const read = await env.events.readStream(subjectStream(subjectId));
    const state = fold(subjectAggregate, read.events);
    const reservation = state.status === 'active' && state.pii !== null ? externalIdStream(state.pii.external_subject_id, secret) : null;
    const decided = decideEraseSubject(state, { reservation, now });
    const pointer = state.status === 'active' ? state.current_assessment : null;
    if (pointer !== null) await closeForErasure(env.events, pointer, metadata, now);
    let appended: AppendResult;
    try {
      appended = await env.events.appendToStream(subjectStream(subjectId), toNewEvents(decided, metadata), read.revision);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ERASE_ATTEMPTS) throw error;
      continue;
    }
    const erased = (decided[0] as SubjectErased).data;
    await completeErasure(env, erased);
    await env.projector.waitFor(appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
    return erased;
  }
}

/** Erasures decided again after a concurrent write to the subject (an assessment opened meanwhile) before giving up. */
const MAX_ERASE_ATTEMPTS = 20;

/** What follows SubjectErased, idempotent: the erasure reactor runs it again after a crash in between. */
export async function completeErasure(env: { events: EventStore; dataKeys: DataKeyStore }, erased: SubjectErased['data']): Promise<void> {
  await env.dataKeys.destroy(erased.subject_id, erased.erased_at);
  if (erased.reservation !== null) await releaseReservation(env.events, erased.reservation, erased.subject_id, new Date(erased.erased_at));
}

/** Releases the reservation if this subject still holds it. */
async function releaseReservation(events: EventStore, reservation: string, subjectId: string, now: Date): Promise<void> {
  for (;;) {
    const claim = await events.readStream(reservation);
    if (reservationHolder(claim.events as unknown as ReservationEvent[]) !== subjectId) return;
    const released: ExternalIdReleased = { type: 'ExternalIdReleased', data: { subject_id: subjectId, released_at: now.toISOString() } };
    try {
      await events.appendToStream(reservation, toNewEvents([released], { causation: 'erasure' }), claim.revision);
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
}
