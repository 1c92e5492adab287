import { completeErasure } from '../commands/subjects.js';
import type { SubjectErased } from '../domain/subject.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import type { EventStore } from '../ports/event-store.js';
import type { Reactor } from '../ports/projection.js';

/**
 * Finishes every erasure: destroys the data key and releases the external id (both idempotent). The
 * DELETE request does it too; this covers a process that died between SubjectErased and the rest.
 */
export function erasureReactor(env: { events: EventStore; dataKeys: DataKeyStore }): Reactor<SubjectErased> {
  return {
    name: 'erasure',
    canHandle: ['SubjectErased'],
    async react(event) {
      await completeErasure(env, event.data);
    },
  };
}
