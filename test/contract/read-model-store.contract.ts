import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReadModelStore } from '../../src/ports/read-models.js';

export interface ReadModelFixture {
  store: ReadModelStore;
  cleanup(): Promise<void>;
}

/** The behaviour every read-model adapter must have. `open` gives each test an empty store that indexes things.tag. */
export function readModelStoreContract(adapter: string, open: () => Promise<ReadModelFixture>, skip = false): void {
  describe.skipIf(skip)(`read model store contract: ${adapter}`, () => {
    let fixture: ReadModelFixture;
    let store: ReadModelStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const ids = Array.from({ length: 5 }, (_, i) => `thg_0${i}`);
    const putAll = () =>
      store.commit(
        'p',
        5n,
        ids.map((id, i) => ({ collection: 'things', id, doc: { id, tag: i % 2 === 0 ? 'even' : 'odd', n: i } })),
      );

    it('has no checkpoint before the first commit, then the committed position', async () => {
      expect(await store.checkpoint('p')).toBeUndefined();
      await store.commit('p', 42n, []);
      expect(await store.checkpoint('p')).toBe(42n);
      expect(await store.checkpoint('other')).toBeUndefined();
    });

    it("keeps a checkpoint beyond 64 bits exactly (EventStoreDB's $all positions)", async () => {
      const position = (2n ** 64n - 1n) * 2n ** 64n + 12345n;
      await store.commit('p', position, []);
      expect(await store.checkpoint('p')).toBe(position);
    });

    it('puts whole documents, replacing the previous version, and gets them by collection and id', async () => {
      await store.commit('p', 1n, [{ collection: 'things', id: 'thg_1', doc: { id: 'thg_1', a: 1, nested: { x: 1 } } }]);
      await store.commit('p', 2n, [{ collection: 'things', id: 'thg_1', doc: { id: 'thg_1', b: 2 } }]);
      expect(await store.get('things', 'thg_1')).toEqual({ id: 'thg_1', b: 2 });
      expect(await store.get('things', 'thg_missing')).toBeUndefined();
      expect(await store.get('others', 'thg_1')).toBeUndefined();
    });

    it('removes a document written as null', async () => {
      await store.commit('p', 1n, [{ collection: 'things', id: 'thg_gone', doc: { id: 'thg_gone' } }]);
      await store.commit('p', 2n, [{ collection: 'things', id: 'thg_gone', doc: null }]);
      expect(await store.get('things', 'thg_gone')).toBeUndefined();
      expect((await store.list('things', { limit: 10 })).data).toEqual([]);
    });

    it('commits the documents and the checkpoint together', async () => {
      await store.commit('p', 7n, [
        { collection: 'things', id: 'thg_a', doc: { id: 'thg_a' } },
        { collection: 'others', id: 'oth_b', doc: { id: 'oth_b' } },
      ]);
      expect(await store.checkpoint('p')).toBe(7n);
      expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a' });
      expect(await store.get('others', 'oth_b')).toEqual({ id: 'oth_b' });
    });

    it('gets many documents in one read: those that exist, with the position of their last event where the store keeps it', async () => {
      await store.commit('p', 9n, [
        { collection: 'things', id: 'thg_a', doc: { id: 'thg_a', n: 1 }, position: 4n },
        { collection: 'things', id: 'thg_b', doc: { id: 'thg_b', n: 2 } },
        { collection: 'others', id: 'thg_c', doc: { id: 'thg_c' } },
      ]);
      const found = await store.getMany('things', ['thg_a', 'thg_b', 'thg_c', 'thg_missing']);
      expect([...found.keys()].sort()).toEqual(['thg_a', 'thg_b']);
      expect(found.get('thg_a')!.doc).toEqual({ id: 'thg_a', n: 1 });
      expect(found.get('thg_b')!.doc).toEqual({ id: 'thg_b', n: 2 });
      // A store that commits documents and checkpoint atomically has nothing to skip on a replay, and keeps no position.
      expect([undefined, 4n]).toContain(found.get('thg_a')!.position);
      expect([undefined, 9n]).toContain(found.get('thg_b')!.position);
      expect(await store.getMany('things', [])).toEqual(new Map());
    });

    it('commits a page of many writes in order, with its checkpoint', async () => {
      const writes = Array.from({ length: 3000 }, (_, i) => ({ collection: 'things', id: `thg_${String(i % 1000).padStart(4, '0')}`, doc: { id: `thg_${String(i % 1000).padStart(4, '0')}`, n: i }, position: BigInt(i + 1) }));
      await store.commit('p', 3001n, [...writes, { collection: 'things', id: 'thg_0999', doc: null, position: 3001n }]);
      expect(await store.checkpoint('p')).toBe(3001n);
      const found = await store.getMany('things', writes.map((write) => write.id));
      expect(found.size).toBe(999);
      expect(found.get('thg_0000')!.doc).toEqual({ id: 'thg_0000', n: 2000 });
      expect(found.get('thg_0998')!.doc).toEqual({ id: 'thg_0998', n: 2998 });
    });

    it('keeps __proto__ and constructor keys as plain data', async () => {
      const doc = JSON.parse('{"id":"thg_p","metadata":{"__proto__":"x","constructor":"y"}}');
      await store.commit('p', 1n, [{ collection: 'things', id: 'thg_p', doc }]);
      const read = await store.get('things', 'thg_p');
      expect(Object.keys(read!.metadata as object)).toEqual(['__proto__', 'constructor']);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });

    it('replays idempotently: the same commit twice leaves the same documents', async () => {
      await putAll();
      await putAll();
      expect((await store.list('things', { limit: 100 })).data).toHaveLength(5);
    });

    it('blanks every matching document for an erasure: only the kept fields and `set` stay', async () => {
      await store.commit('p', 1n, [
        { collection: 'things', id: 'thg_a', doc: { id: 'thg_a', tag: 'sub_x', status: 'done', name: 'Ada', nested: { email: 'a@x' } } },
        { collection: 'things', id: 'thg_b', doc: { id: 'thg_b', tag: 'sub_x', name: 'Ada again', answers: [1, 2] } },
        { collection: 'things', id: 'thg_c', doc: { id: 'thg_c', tag: 'sub_y', status: 'done', name: 'Bob' } },
        { collection: 'others', id: 'thg_a', doc: { id: 'thg_a', tag: 'sub_x', name: 'Ada elsewhere' } },
      ]);
      await store.commit('p', 2n, [{ collection: 'things', where: { tag: 'sub_x' }, keep: ['id', 'tag', 'status'], set: { erased: true, note: { by: 'erasure' } } }]);
      expect(await store.checkpoint('p')).toBe(2n);
      // A kept field the document lacks stays absent; `id` stays even when not asked for.
      expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a', tag: 'sub_x', status: 'done', erased: true, note: { by: 'erasure' } });
      expect(await store.get('things', 'thg_b')).toEqual({ id: 'thg_b', tag: 'sub_x', erased: true, note: { by: 'erasure' } });
      expect(await store.get('things', 'thg_c')).toEqual({ id: 'thg_c', tag: 'sub_y', status: 'done', name: 'Bob' });
      expect(await store.get('others', 'thg_a')).toEqual({ id: 'thg_a', tag: 'sub_x', name: 'Ada elsewhere' });
      // Blanked documents are still listed, and still found by a kept field.
      const listed = await store.list('things', { limit: 10, where: { tag: 'sub_x' } });
      expect(listed.data.map((d) => d.id)).toEqual(['thg_b', 'thg_a']);
    });

    it('keeps `id` when a blanking keeps nothing, and blanks nothing when nothing matches', async () => {
      await store.commit('p', 1n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', tag: 'sub_x', name: 'Ada' } }]);
      await store.commit('p', 2n, [{ collection: 'things', where: { tag: 'sub_x' }, keep: [], set: { erased: true } }]);
      expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a', erased: true });
      await store.commit('p', 3n, [{ collection: 'things', where: { tag: 'sub_nobody' }, keep: ['id'], set: { erased: true } }]);
      expect(await store.checkpoint('p')).toBe(3n);
      expect((await store.list('things', { limit: 10 })).data).toEqual([{ id: 'thg_a', erased: true }]);
    });

    it('blanks idempotently: the same erasure replayed leaves the same documents', async () => {
      await putAll();
      const erase = () => store.commit('p', 6n, [{ collection: 'things', where: { tag: 'even' }, keep: ['id', 'tag'], set: { erased: true } }]);
      await erase();
      await erase();
      expect((await store.list('things', { limit: 10 })).data).toEqual([
        { id: 'thg_04', tag: 'even', erased: true },
        { id: 'thg_03', tag: 'odd', n: 3 },
        { id: 'thg_02', tag: 'even', erased: true },
        { id: 'thg_01', tag: 'odd', n: 1 },
        { id: 'thg_00', tag: 'even', erased: true },
      ]);
    });

    it('purges', async () => {
      await putAll();
      await store.commit('p', 6n, [{ collection: 'things', where: { tag: 'odd' }, keep: ['id'], set: { erased: true } }]);
      await expect(store.purge()).resolves.toBeUndefined();
      expect(await store.get('things', 'thg_01')).toEqual({ id: 'thg_01', erased: true });
      expect(await store.get('things', 'thg_00')).toEqual({ id: 'thg_00', tag: 'even', n: 0 });
    });

    it('lists newest id first, pages with starting_after and ending_before, and filters on a field', async () => {
      await putAll();
      const first = await store.list('things', { limit: 2 });
      expect(first.data.map((d) => d.id)).toEqual(['thg_04', 'thg_03']);
      expect(first.hasMore).toBe(true);
      const second = await store.list('things', { limit: 2, startingAfter: 'thg_03' });
      expect(second.data.map((d) => d.id)).toEqual(['thg_02', 'thg_01']);
      const last = await store.list('things', { limit: 2, startingAfter: 'thg_01' });
      expect(last).toEqual({ data: [expect.objectContaining({ id: 'thg_00' })], hasMore: false });
      const back = await store.list('things', { limit: 2, endingBefore: 'thg_01' });
      expect(back.data.map((d) => d.id)).toEqual(['thg_03', 'thg_02']);
      expect(back.hasMore).toBe(true);
      const even = await store.list('things', { limit: 10, where: { tag: 'even' } });
      expect(even.data.map((d) => d.id)).toEqual(['thg_04', 'thg_02', 'thg_00']);
    });
  });
}
