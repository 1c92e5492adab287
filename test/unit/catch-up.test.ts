import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import type { DomainEvent, Projection } from '../../src/ports/projection.js';
import { type BackgroundWriter, FencedOffError } from '../../src/ports/read-models.js';
import { catchUp } from '../../src/projector/catch-up.js';
import { ProjectionLane } from '../../src/projector/lanes.js';
import { tempDir } from '../support/temp-dir.js';

/** A subject's note: personal, blanked by its subject's erasure. */
const notes: Projection<DomainEvent, { id: string; subject_id: string; text?: string; erased?: boolean }> = {
  name: 'notes',
  collection: 'notes',
  canHandle: ['NoteWritten'],
  documentId: (event) => (event.data as { subject_id: string }).subject_id,
  erasure: { keep: ['id', 'subject_id'] },
  evolve: (current, event) => {
    const { subject_id, text } = event.data as { subject_id: string; text: string };
    return current !== undefined && 'erased' in current ? current : { id: subject_id, subject_id, text };
  },
};

const event = (type: string, data: object) => ({ id: randomUUID(), type, data, metadata: {} });

describe('a catch-up with a background writer', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('has what the writer still holds stored before an erasure blanks it: nothing personal outlives the erasure', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL');
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    await events.appendToStream('notes-a', [event('NoteWritten', { subject_id: 'a', text: 'personal' })], 'no_stream');
    await events.appendToStream('subject-a', [event('SubjectErased', { subject_id: 'a' })], 'no_stream');
    await events.appendToStream('notes-b', [event('NoteWritten', { subject_id: 'b', text: 'kept' })], 'no_stream');
    await events.appendToStream('notes-c', [event('NoteWritten', { subject_id: 'c', text: 'kept' })], 'no_stream');
    // A writer that makes each commit only once the events already queued have run (setImmediate): a commit handed
    // over right before the erasure is still being made when the fold reaches it.
    const writer: BackgroundWriter = {
      commit: (projection, position, writes, fence) =>
        new Promise((resolve) => setImmediate(resolve)).then(() => readModels.commit(projection, position, writes, fence)),
      close: () => Promise.resolve(),
    };
    const store = Object.assign(Object.create(readModels) as SqliteReadModelStore, { backgroundWriter: () => writer });
    const lane = new ProjectionLane(notes, store);
    await lane.load();
    // Pages of one event, each committed at once: the note of `a` is in flight when its erasure comes.
    await catchUp(events, store, [lane], new AbortController().signal, { page: 1, hold: 1, remembered: 100 });
    expect(lane.position).toBe(4n);
    expect(await readModels.get('notes', 'a')).toEqual({ id: 'a', subject_id: 'a', erased: true });
    expect(await readModels.get('notes', 'b')).toEqual({ id: 'b', subject_id: 'b', text: 'kept' });
    expect(await readModels.checkpoint('notes')).toBe(4n);
    await events.close();
    await readModels.close();
  });

  it("commits on SQLite's writer thread under the leader's fence, and refuses a deposed leader's commit", async () => {
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const token = (await readModels.acquireLease('projector', 'first', 60_000))!;
    const writer = readModels.backgroundWriter()!;
    const fence = { lease: 'projector', token };
    await writer.commit('notes', 7n, [{ collection: 'notes', id: 'b', doc: { id: 'b', subject_id: 'b' }, position: 7n }], fence);
    // Made on the writer's own connection, and seen on this one once answered.
    expect(await readModels.get('notes', 'b')).toEqual({ id: 'b', subject_id: 'b' });
    expect(await readModels.checkpoint('notes')).toBe(7n);
    await readModels.releaseLease('projector', 'first');
    await readModels.acquireLease('projector', 'second', 60_000);
    const refused = writer.commit('notes', 8n, [{ collection: 'notes', id: 'c', doc: { id: 'c', subject_id: 'c' }, position: 8n }], fence);
    await expect(refused).rejects.toBeInstanceOf(FencedOffError);
    await writer.close();
    expect(await readModels.get('notes', 'c')).toBeUndefined();
    expect(await readModels.checkpoint('notes')).toBe(7n);
    await readModels.close();
  });
});
