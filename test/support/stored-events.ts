import type { StoredEvent } from '../../src/adapters/eventstoredb/mapping.js';

/** An event as the EventStoreDB client hands it over, at $all position `commit` (prepare the same). */
export function storedEvent(commit: bigint, { type = 'SubjectCreated', streamId = 'sandbox.subject-sub_1' } = {}): StoredEvent {
  return {
    id: `e-${commit}`,
    streamId,
    revision: 0n,
    type,
    created: new Date('2026-11-21T10:00:00.000Z'),
    data: {},
    metadata: {},
    position: { commit, prepare: commit },
  };
}
