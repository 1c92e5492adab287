import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FencedOffError, type ReadModelStore } from '../../src/ports/read-models.js';

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
      const writes = Array.from({ length: 3000 }, (_, i) => ({
        collection: 'things',
        id: `thg_${String(i % 1000).padStart(4, '0')}`,
        doc: { id: `thg_${String(i % 1000).padStart(4, '0')}`, n: i },
        position: BigInt(i + 1),
      }));
      await store.commit('p', 3001n, [...writes, { collection: 'things', id: 'thg_0999', doc: null, position: 3001n }]);
      expect(await store.checkpoint('p')).toBe(3001n);
      const found = await store.getMany(
        'things',
        writes.map((write) => write.id),
      );
      expect(found.get('thg_0999')!.doc).toBeUndefined();
      expect([...found.values()].filter((version) => version.doc !== undefined)).toHaveLength(999);
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

    it('keeps metadata keys with `$` and `.` as plain data, never as operators or paths', async () => {
      // Callers choose metadata keys (1..40 characters, any); nested values are for other documents' sake.
      const metadata = { $set: 'x', 'a.b': 1, nested: { $gt: 2, 'x.y': 'z' }, $: '$$ROOT', '.': '$literal', $where: 'sleep(1000)' };
      await store.commit('p', 1n, [{ collection: 'things', id: 'thg_m', doc: { id: 'thg_m', tag: 'even', metadata } }]);
      expect(await store.get('things', 'thg_m')).toEqual({ id: 'thg_m', tag: 'even', metadata });
      expect((await store.getMany('things', ['thg_m'])).get('thg_m')!.doc).toEqual({ id: 'thg_m', tag: 'even', metadata });
      expect((await store.list('things', { limit: 10, where: { tag: 'even' } })).data).toEqual([{ id: 'thg_m', tag: 'even', metadata }]);
      // Replaced by a newer event, and blanked by an erasure, as any other document.
      const newer = { ...metadata, 'a.b': 2 };
      await store.commit('p', 2n, [{ collection: 'things', id: 'thg_m', doc: { id: 'thg_m', tag: 'even', metadata: newer } }]);
      expect(await store.get('things', 'thg_m')).toEqual({ id: 'thg_m', tag: 'even', metadata: newer });
      await store.commit('p', 3n, [{ collection: 'things', where: { tag: 'even' }, keep: ['id', 'tag'], set: { erased: true } }]);
      expect(await store.get('things', 'thg_m')).toEqual({ id: 'thg_m', tag: 'even', erased: true });
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
      await store.commit('p', 2n, [
        { collection: 'things', where: { tag: 'sub_x' }, keep: ['id', 'tag', 'status'], set: { erased: true, note: { by: 'erasure' } } },
      ]);
      expect(await store.checkpoint('p')).toBe(2n);
      // A kept field the document lacks stays absent; `id` stays even when not asked for.
      expect(await store.get('things', 'thg_a')).toEqual({
        id: 'thg_a',
        tag: 'sub_x',
        status: 'done',
        erased: true,
        note: { by: 'erasure' },
      });
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
      const erase = () =>
        store.commit('p', 6n, [{ collection: 'things', where: { tag: 'even' }, keep: ['id', 'tag'], set: { erased: true } }]);
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

    it('resets the named collections and checkpoints, tombstones included, and leaves the others', async () => {
      await putAll();
      await store.commit('p', 7n, [{ collection: 'things', id: 'thg_00', doc: null }]);
      await store.commit('other', 5n, [{ collection: 'kept', id: 'kpt_1', doc: { id: 'kpt_1', tag: 'even' } }]);
      await store.reset(['things'], ['p']);
      expect(await store.checkpoint('p')).toBeUndefined();
      expect(await store.checkpoint('other')).toBe(5n);
      expect((await store.list('things', { limit: 10 })).data).toEqual([]);
      // The tombstone went too: an older write lands again, as in a rebuild from the start of the log.
      expect((await store.getMany('things', ['thg_00'])).size).toBe(0);
      await store.commit('p', 1n, [{ collection: 'things', id: 'thg_00', doc: { id: 'thg_00', tag: 'even', n: 0 } }]);
      expect(await store.get('things', 'thg_00')).toEqual({ id: 'thg_00', tag: 'even', n: 0 });
      expect(await store.get('kept', 'kpt_1')).toEqual({ id: 'kpt_1', tag: 'even' });
    });

    describe('counters', () => {
      const count = (counter: string, period: string, key: string, ...positions: bigint[]) => ({
        collection: 'tallies',
        counter,
        period,
        key,
        positions,
      });
      const sorted = (rows: { period: string; key: string; n: number }[]) =>
        [...rows].sort((a, b) => a.period.localeCompare(b.period) || a.key.localeCompare(b.key));

      it('adds one per event to a row of (period, key), with the checkpoint, and reads the rows of a span of periods', async () => {
        await store.commit('p', 3n, [count('day', '2026-11-02', 'key_a', 1n, 3n), count('day', '2026-11-02', '', 2n)]);
        await store.commit('p', 6n, [count('day', '2026-11-02', 'key_a', 5n), count('day', '2026-11-03', 'key_a', 6n)]);
        await store.commit('p', 7n, [count('minute', '2026-11-02T10:00', 'key_a', 7n)]);
        expect(await store.checkpoint('p')).toBe(7n);
        expect(sorted(await store.counts('tallies', 'day', '2026-11-02', '2026-11-03'))).toEqual([
          { period: '2026-11-02', key: '', n: 1 },
          { period: '2026-11-02', key: 'key_a', n: 3 },
        ]);
        expect(sorted(await store.counts('tallies', 'day', '2026-11-01', '2026-12-01'))).toHaveLength(3);
        expect(await store.counts('tallies', 'day', '2026-11-04', '2026-12-01')).toEqual([]);
        expect(await store.counts('tallies', 'minute', '2026-11-02T10:00', '2026-11-02T10:01')).toEqual([
          { period: '2026-11-02T10:00', key: 'key_a', n: 1 },
        ]);
        expect(await store.counts('others', 'day', '2026-11-01', '2026-12-01')).toEqual([]);
      });

      it('counts no event twice: a page counted again adds only the events the row has not counted', async () => {
        await store.commit('p', 4n, [count('day', '2026-11-02', 'key_a', 2n, 4n)]);
        // The same page again (a replay), then a longer one that overlaps it (a commit cut short, replayed further).
        await store.commit('p', 4n, [count('day', '2026-11-02', 'key_a', 2n, 4n)]);
        await store.commit('p', 9n, [count('day', '2026-11-02', 'key_a', 2n, 4n, 9n)]);
        // A writer that lags, beyond 64 bits too.
        await store.commit('p', 3n, [count('day', '2026-11-02', 'key_a', 3n)]);
        expect(await store.counts('tallies', 'day', '2026-11-02', '2026-11-03')).toEqual([{ period: '2026-11-02', key: 'key_a', n: 3 }]);
        const far = 10n ** 20n;
        await store.commit('p', far, [count('day', '2026-11-02', 'key_a', far)]);
        await store.commit('p', far, [count('day', '2026-11-02', 'key_a', 9n * 10n ** 19n, far)]);
        expect(await store.counts('tallies', 'day', '2026-11-02', '2026-11-03')).toEqual([{ period: '2026-11-02', key: 'key_a', n: 4 }]);
      });

      it('resets the counters of the named collections with their documents', async () => {
        await store.commit('p', 2n, [
          count('day', '2026-11-02', 'key_a', 1n),
          { collection: 'kept', counter: 'day', period: '2026-11-02', key: 'k', positions: [2n] },
        ]);
        await store.reset(['tallies'], ['p']);
        expect(await store.counts('tallies', 'day', '2026-11-01', '2026-12-01')).toEqual([]);
        expect(await store.counts('kept', 'day', '2026-11-01', '2026-12-01')).toEqual([{ period: '2026-11-02', key: 'k', n: 1 }]);
        await store.commit('p', 1n, [count('day', '2026-11-02', 'key_a', 1n)]);
        expect(await store.counts('tallies', 'day', '2026-11-01', '2026-12-01')).toEqual([{ period: '2026-11-02', key: 'key_a', n: 1 }]);
      });
    });

    describe('several writers (replicas): positions never go backwards', () => {
      it('never moves a checkpoint backwards, beyond 64 bits too', async () => {
        await store.commit('p', 10n, []);
        await store.commit('p', 9n, []);
        expect(await store.checkpoint('p')).toBe(10n);
        const far = 10n ** 20n;
        await store.commit('p', far, []);
        await store.commit('p', 9n * 10n ** 19n, []);
        await store.commit('p', 11n, []);
        expect(await store.checkpoint('p')).toBe(far);
      });

      it('replaces a document only with a newer event: a lagging writer neither rolls it back nor applies an event twice', async () => {
        await store.commit('p', 5n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', v: 'new' }, position: 5n }]);
        // A replica that lags commits an older version of the document, and its own (older) checkpoint.
        await store.commit('p', 3n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', v: 'old' }, position: 3n }]);
        await store.commit('p', 5n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', v: 'same event again' }, position: 5n }]);
        expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a', v: 'new' });
        expect(await store.checkpoint('p')).toBe(5n);
        expect((await store.getMany('things', ['thg_a'])).get('thg_a')).toEqual({ doc: { id: 'thg_a', v: 'new' }, position: 5n });
      });

      it('keeps a removed document as a tombstone with its position: an older write cannot bring it back, a newer one can', async () => {
        await store.commit('p', 4n, [{ collection: 'things', id: 'thg_gone', doc: { id: 'thg_gone', tag: 'even' }, position: 4n }]);
        await store.commit('p', 7n, [{ collection: 'things', id: 'thg_gone', doc: null, position: 7n }]);
        // The lagging replica writes the document as it was before the removal.
        await store.commit('p', 6n, [
          { collection: 'things', id: 'thg_gone', doc: { id: 'thg_gone', tag: 'even', resurrected: true }, position: 6n },
        ]);
        expect(await store.get('things', 'thg_gone')).toBeUndefined();
        expect((await store.list('things', { limit: 10 })).data).toEqual([]);
        expect((await store.list('things', { limit: 10, where: { tag: 'even' } })).data).toEqual([]);
        // A projection folding the next events learns that the document is gone, and since when.
        expect((await store.getMany('things', ['thg_gone'])).get('thg_gone')).toEqual({ doc: undefined, position: 7n });
        // A removal of a document never written leaves its tombstone too.
        await store.commit('p', 8n, [{ collection: 'things', id: 'thg_never', doc: null, position: 8n }]);
        await store.commit('p', 5n, [{ collection: 'things', id: 'thg_never', doc: { id: 'thg_never' }, position: 5n }]);
        expect(await store.get('things', 'thg_never')).toBeUndefined();
        await store.commit('p', 9n, [{ collection: 'things', id: 'thg_gone', doc: { id: 'thg_gone', tag: 'odd' }, position: 9n }]);
        expect(await store.get('things', 'thg_gone')).toEqual({ id: 'thg_gone', tag: 'odd' });
        expect((await store.list('things', { limit: 10 })).data).toEqual([{ id: 'thg_gone', tag: 'odd' }]);
      });

      it('keeps an erased document blank: a lagging write of its personal fields from before the erasure is ignored', async () => {
        await store.commit('p', 3n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', tag: 'sub_x', name: 'Ada' }, position: 3n }]);
        await store.commit('p', 8n, [{ collection: 'things', where: { tag: 'sub_x' }, keep: ['id', 'tag'], set: { erased: true } }]);
        await store.commit('p', 5n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', tag: 'sub_x', name: 'Ada' }, position: 5n }]);
        expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a', tag: 'sub_x', erased: true });
        expect((await store.getMany('things', ['thg_a'])).get('thg_a')!.position).toBe(8n);
      });
    });

    describe('leases', () => {
      it('gives a free lease to one holder with a token that grows with each new holder, and renews it for that holder', async () => {
        const first = await store.acquireLease('leader', 'replica-a', 60_000);
        expect(first).toBeTypeOf('number');
        expect(await store.acquireLease('leader', 'replica-b', 60_000)).toBeUndefined();
        expect(await store.acquireLease('leader', 'replica-a', 60_000)).toBe(first);
        // Leases are by name: another lease is free.
        expect(await store.acquireLease('other', 'replica-b', 60_000)).toBeTypeOf('number');
        await store.releaseLease('leader', 'replica-b');
        expect(await store.acquireLease('leader', 'replica-b', 60_000)).toBeUndefined();
        await store.releaseLease('leader', 'replica-a');
        const second = await store.acquireLease('leader', 'replica-b', 60_000);
        expect(second).toBeGreaterThan(first!);
        expect(await store.acquireLease('leader', 'replica-a', 60_000)).toBeUndefined();
        // Taken back after a release, the lease has a new token again: the holder's old commits stay fenced off.
        await store.releaseLease('leader', 'replica-b');
        const third = await store.acquireLease('leader', 'replica-a', 60_000);
        expect(third).toBeGreaterThan(second!);
      });

      it('lets another holder take a lease that was not renewed in time', async () => {
        const first = await store.acquireLease('leader', 'replica-a', 300);
        await expect.poll(() => store.acquireLease('leader', 'replica-b', 60_000), { timeout: 5000, interval: 50 }).toBeGreaterThan(first!);
        expect(await store.acquireLease('leader', 'replica-a', 300)).toBeUndefined();
      });

      it("refuses a deposed holder's commit: nothing of it is written; the new holder's goes through", async () => {
        const old = (await store.acquireLease('leader', 'replica-a', 60_000))!;
        await store.commit('p', 2n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', by: 'a' } }], {
          lease: 'leader',
          token: old,
        });
        await store.releaseLease('leader', 'replica-a');
        const current = (await store.acquireLease('leader', 'replica-b', 60_000))!;
        const deposed = store.commit(
          'p',
          3n,
          [
            { collection: 'things', id: 'thg_a', doc: { id: 'thg_a', by: 'deposed a' } },
            { collection: 'things', id: 'thg_b', doc: { id: 'thg_b', by: 'deposed a' } },
          ],
          { lease: 'leader', token: old },
        );
        await expect(deposed).rejects.toBeInstanceOf(FencedOffError);
        expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a', by: 'a' });
        expect(await store.get('things', 'thg_b')).toBeUndefined();
        expect(await store.checkpoint('p')).toBe(2n);
        await store.commit('p', 3n, [{ collection: 'things', id: 'thg_a', doc: { id: 'thg_a', by: 'b' } }], {
          lease: 'leader',
          token: current,
        });
        expect(await store.get('things', 'thg_a')).toEqual({ id: 'thg_a', by: 'b' });
        expect(await store.checkpoint('p')).toBe(3n);
        // A fence on a lease nobody ever took is refused too.
        await expect(
          store.commit('p', 4n, [{ collection: 'things', id: 'thg_c', doc: { id: 'thg_c' } }], { lease: 'nobody', token: 1 }),
        ).rejects.toBeInstanceOf(FencedOffError);
      });

      it("refuses a deposed holder's checkpoint-only commit: the checkpoint stays where the new holder left it", async () => {
        const old = (await store.acquireLease('leader', 'replica-a', 60_000))!;
        await store.commit('p', 2n, [], { lease: 'leader', token: old });
        await store.releaseLease('leader', 'replica-a');
        const current = (await store.acquireLease('leader', 'replica-b', 60_000))!;
        await expect(store.commit('p', 5n, [], { lease: 'leader', token: old })).rejects.toBeInstanceOf(FencedOffError);
        expect(await store.checkpoint('p')).toBe(2n);
        await expect(store.commit('other', 5n, [], { lease: 'leader', token: old })).rejects.toBeInstanceOf(FencedOffError);
        expect(await store.checkpoint('other')).toBeUndefined();
        await store.commit('p', 3n, [], { lease: 'leader', token: current });
        expect(await store.checkpoint('p')).toBe(3n);
      });

      it('checks a fence on its own: it holds for the current token only', async () => {
        const old = (await store.acquireLease('leader', 'replica-a', 60_000))!;
        await expect(store.checkFence({ lease: 'leader', token: old })).resolves.toBeUndefined();
        await store.releaseLease('leader', 'replica-a');
        const current = (await store.acquireLease('leader', 'replica-b', 60_000))!;
        await expect(store.checkFence({ lease: 'leader', token: old })).rejects.toBeInstanceOf(FencedOffError);
        await expect(store.checkFence({ lease: 'leader', token: current })).resolves.toBeUndefined();
        // Renewed, the lease keeps its token, and the fence holds.
        expect(await store.acquireLease('leader', 'replica-b', 60_000)).toBe(current);
        await expect(store.checkFence({ lease: 'leader', token: current })).resolves.toBeUndefined();
        await expect(store.checkFence({ lease: 'nobody', token: 1 })).rejects.toBeInstanceOf(FencedOffError);
      });
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
