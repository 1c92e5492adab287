import { newId } from '../domain/ids.js';
import { DomainError } from '../domain/errors.js';
import {
  type Consent,
  type ExternalIdClaimed,
  type ExternalIdReleased,
  type ReservationEvent,
  type SubjectErased,
  type SubjectState,
  decideCreateSubject,
  decideEraseSubject,
  evolveSubject,
  externalIdStream,
  initialSubjectState,
  reservationHolder,
  subjectStream,
} from '../domain/subject.js';
import type { CommandContext } from './context.js';
import { type EventMetadata, type EventStore, WrongExpectedRevisionError } from '../ports/event-store.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import { handleCommand, toNewEvents } from './handle-command.js';

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
): Promise<Extract<SubjectState, { status: 'active' }>> {
  const reservation = externalIdStream(input.external_subject_id, await env.dataKeys.environmentSecret());
  for (;;) {
    const claim = await env.events.readStream(reservation);
    let subjectId = reservationHolder(claim.events as unknown as ReservationEvent[]);
    if (subjectId === undefined) {
      subjectId = newId('sub');
      const claimed: ExternalIdClaimed = { type: 'ExternalIdClaimed', data: { subject_id: subjectId } };
      try {
        await env.events.appendToStream(reservation, toNewEvents([claimed], metadata), claim.revision === -1n ? 'no_stream' : claim.revision);
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
    }
    const id = subjectId;
    const now = new Date().toISOString();
    try {
      const result = await handleCommand(
        env.events,
        subjectStream(id),
        subjectAggregate,
        (state) => decideCreateSubject(state, { subject_id: id, ...input, now }),
        metadata,
      );
      if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
      if (result.state.status !== 'active') throw new Error('subject creation left no subject');
      return result.state;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'subject_erased')) throw error;
      await releaseReservation(env.events, reservation, id, new Date());
    }
  }
}

/**
 * Erases a subject: SubjectErased on its stream (the decision, serialised with its other commands), then
 * its data key is destroyed and its external id released. Its documents go from the read models as the
 * projector applies the event; the answer waits for that.
 */
export async function eraseSubject(env: CommandContext, subjectId: string, metadata: EventMetadata, now: Date): Promise<SubjectErased['data']> {
  const secret = await env.dataKeys.environmentSecret();
  const result = await handleCommand(
    env.events,
    subjectStream(subjectId),
    subjectAggregate,
    (state) => {
      const reservation = state.status === 'active' && state.pii !== null ? externalIdStream(state.pii.external_subject_id, secret) : null;
      return decideEraseSubject(state, { reservation, now });
    },
    metadata,
  );
  const erased = (result.events[0] as SubjectErased).data;
  await completeErasure(env, erased);
  await env.projector.waitFor(result.appended!.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return erased;
}

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

/** How long a write waits for the read models to show it before answering anyway. */
export const READ_YOUR_WRITES_TIMEOUT_MS = 2000;
