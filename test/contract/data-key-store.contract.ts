import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DataKeyStore, SubjectErasedError } from '../../src/ports/data-keys.js';

export interface DataKeyFixture {
  store: DataKeyStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen?(): Promise<void>;
  /** Closes the current store and removes its data. */
  cleanup(): Promise<void>;
}

/** keyFor as a promise even if an adapter throws before returning one, so a refusal is always a rejection here. */
function keyFor(store: DataKeyStore, subjectId: string): Promise<Buffer> {
  return Promise.resolve().then(() => store.keyFor(subjectId));
}

/** The behaviour every data-key adapter must have. `open` gives each test an empty store. */
export function dataKeyStoreContract(adapter: string, open: () => Promise<DataKeyFixture>, skip = false): void {
  describe.skipIf(skip)(`data key store contract: ${adapter}`, () => {
    let fixture: DataKeyFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const erasedAt = '2025-01-02T03:04:05.000Z';

    it('makes a 32-byte key on first use and returns the same key after', async () => {
      const first = await keyFor(fixture.store, 'sub_a');
      expect(Buffer.isBuffer(first)).toBe(true);
      expect(first).toHaveLength(32);
      expect(first.equals(Buffer.alloc(32))).toBe(false);
      const again = await keyFor(fixture.store, 'sub_a');
      expect(again.equals(first)).toBe(true);
    });

    it('keeps keys, destructions and the environment secret across a reopen', async ({ skip }) => {
      if (fixture.reopen === undefined) skip();
      const kept = await keyFor(fixture.store, 'sub_kept');
      await keyFor(fixture.store, 'sub_gone');
      await fixture.store.destroy('sub_gone', erasedAt);
      const secret = await fixture.store.environmentSecret();
      await fixture.reopen!();
      expect((await keyFor(fixture.store, 'sub_kept')).equals(kept)).toBe(true);
      expect((await fixture.store.find('sub_kept'))?.equals(kept)).toBe(true);
      expect(await fixture.store.find('sub_gone')).toBeUndefined();
      await expect(keyFor(fixture.store, 'sub_gone')).rejects.toBeInstanceOf(SubjectErasedError);
      expect((await fixture.store.environmentSecret()).equals(secret)).toBe(true);
    });

    it('gives different subjects different keys', async () => {
      const keys = await Promise.all(['sub_1', 'sub_2', 'sub_3'].map((id) => keyFor(fixture.store, id)));
      const distinct = new Set(keys.map((key) => key.toString('hex')));
      expect(distinct.size).toBe(3);
    });

    it('makes one key when one subject asks ten times at once', async () => {
      const keys = await Promise.all(Array.from({ length: 10 }, () => keyFor(fixture.store, 'sub_race')));
      expect(keys.every((key) => key.length === 32 && key.equals(keys[0]!))).toBe(true);
      expect((await fixture.store.find('sub_race'))?.equals(keys[0]!)).toBe(true);
    });

    it('finds nothing for an unknown subject and the key for a known one', async () => {
      expect(await fixture.store.find('sub_unknown')).toBeUndefined();
      const key = await keyFor(fixture.store, 'sub_known');
      const found = await fixture.store.find('sub_known');
      expect(found).toBeDefined();
      expect(found!.equals(key)).toBe(true);
      // find never makes a key.
      expect(await fixture.store.find('sub_unknown')).toBeUndefined();
    });

    it('destroys a key for good: find is undefined and keyFor throws SubjectErasedError', async () => {
      await keyFor(fixture.store, 'sub_erased');
      const other = await keyFor(fixture.store, 'sub_other');
      await fixture.store.destroy('sub_erased', erasedAt);
      expect(await fixture.store.find('sub_erased')).toBeUndefined();
      const error = await keyFor(fixture.store, 'sub_erased').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(SubjectErasedError);
      expect((error as SubjectErasedError).subjectId).toBe('sub_erased');
      // Asking again neither makes a new key nor brings the old one back.
      await expect(keyFor(fixture.store, 'sub_erased')).rejects.toBeInstanceOf(SubjectErasedError);
      expect(await fixture.store.find('sub_erased')).toBeUndefined();
      // Other subjects keep theirs.
      expect((await fixture.store.find('sub_other'))?.equals(other)).toBe(true);
      expect((await keyFor(fixture.store, 'sub_other')).equals(other)).toBe(true);
    });

    it('destroys idempotently', async () => {
      await keyFor(fixture.store, 'sub_twice');
      await fixture.store.destroy('sub_twice', erasedAt);
      await expect(fixture.store.destroy('sub_twice', '2026-01-01T00:00:00.000Z')).resolves.toBeUndefined();
      expect(await fixture.store.find('sub_twice')).toBeUndefined();
      await expect(keyFor(fixture.store, 'sub_twice')).rejects.toBeInstanceOf(SubjectErasedError);
    });

    it('destroys a subject that never had a key, so none is ever made for it', async () => {
      await fixture.store.destroy('sub_never', erasedAt);
      expect(await fixture.store.find('sub_never')).toBeUndefined();
      await expect(keyFor(fixture.store, 'sub_never')).rejects.toThrow(new SubjectErasedError('sub_never').message);
      await expect(keyFor(fixture.store, 'sub_never')).rejects.toMatchObject({ name: 'SubjectErasedError', subjectId: 'sub_never' });
      await fixture.store.destroy('sub_never', erasedAt);
      expect(await fixture.store.find('sub_never')).toBeUndefined();
    });

    it('makes the environment secret once: 32 bytes, the same on every call', async () => {
      const [first, ...concurrent] = await Promise.all(Array.from({ length: 5 }, () => fixture.store.environmentSecret()));
      expect(first).toHaveLength(32);
      expect(concurrent.every((secret) => secret.equals(first!))).toBe(true);
      expect((await fixture.store.environmentSecret()).equals(first!)).toBe(true);
      // The secret is not a subject's key.
      expect((await keyFor(fixture.store, 'environment')).equals(first!)).toBe(false);
    });

    it('answers ping', async () => {
      await expect(fixture.store.ping()).resolves.toBeUndefined();
    });
  });
}
