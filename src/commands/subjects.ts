import { newId } from '../domain/ids.js';
import {
  type Consent,
  type ExternalIdClaimed,
  type SubjectState,
  decideCreateSubject,
  evolveSubject,
  externalIdStream,
  initialSubjectState,
  subjectStream,
} from '../domain/subject.js';
import type { CommandContext } from './context.js';
import { type EventMetadata, WrongExpectedRevisionError } from '../ports/event-store.js';
import { handleCommand, toNewEvents } from './handle-command.js';

export interface CreateSubjectInput {
  external_subject_id: string;
  metadata: Record<string, string>;
  consent: Consent;
}

const subjectAggregate = { initial: initialSubjectState, evolve: evolveSubject };

/**
 * Creates a subject whose external_subject_id is unique in the environment. The id is claimed first
 * on its own stream (no_stream wins once); the subject's stream follows. A claim whose subject stream
 * was never written (a crash between the two appends) is completed by the next create with that id.
 */
export async function createSubject(
  env: CommandContext,
  input: CreateSubjectInput,
  metadata: EventMetadata,
): Promise<Extract<SubjectState, { status: 'active' }>> {
  const claimStream = externalIdStream(input.external_subject_id);
  for (;;) {
    const claim = await env.events.readStream(claimStream);
    let subjectId = (claim.events[0]?.data as ExternalIdClaimed['data'] | undefined)?.subject_id;
    if (subjectId === undefined) {
      subjectId = newId('sub');
      const claimed: ExternalIdClaimed = { type: 'ExternalIdClaimed', data: { subject_id: subjectId } };
      try {
        await env.events.appendToStream(claimStream, toNewEvents([claimed], metadata), 'no_stream');
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
    }
    const id = subjectId;
    const now = new Date().toISOString();
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
  }
}

/** How long a write waits for the read models to show it before answering anyway. */
export const READ_YOUR_WRITES_TIMEOUT_MS = 2000;
