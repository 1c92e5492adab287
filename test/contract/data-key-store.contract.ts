import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BlobKind, type DataKeyStore, type StoredBlob, SubjectErasedError, type WrappedKeyStore } from '../../src/ports/data-keys.js';
import { MasterKeyFile } from '../../src/privacy/master-key-file.js';
import { WrappedDataKeys } from '../../src/privacy/wrapped-data-keys.js';

export interface DataKeyFixture {
  store: DataKeyStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
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

    it('keeps keys, destructions and the environment secret across a reopen', async () => {
      const kept = await keyFor(fixture.store, 'sub_kept');
      await keyFor(fixture.store, 'sub_gone');
      await fixture.store.destroy('sub_gone', erasedAt);
      const secret = await fixture.store.environmentSecret();
      await fixture.reopen();
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

/** `store` opened with the master key in `keyFile` (made there if missing), as openDataKeys does. */
export async function wrappedDataKeys(store: WrappedKeyStore, keyFile: string): Promise<DataKeyStore> {
  return WrappedDataKeys.open(store, await MasterKeyFile.open(keyFile, async () => undefined));
}

export interface WrappedKeyFixture {
  store: WrappedKeyStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
  /** Closes the current store and removes its data. */
  cleanup(): Promise<void>;
}

/** Every blob of a kind, through pages of `limit`. */
async function listAll(store: WrappedKeyStore, kind: BlobKind, limit = 1000): Promise<StoredBlob[]> {
  const all: StoredBlob[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.list(kind, after, limit);
    if (page.length === 0) return all;
    all.push(...page);
    after = page.at(-1)!.name;
  }
}

/** A blob as a decorator would make it, carrying the master key id it was given, so a test can read it back. */
const blobFor = (masterKeyId: string) => Buffer.concat([Buffer.from(masterKeyId, 'hex'), randomBytes(61)]);
const idOf = (blob: Buffer) => blob.subarray(0, 8).toString('hex');

/**
 * The lower port every adapter must offer: opaque blobs, the master key record, listing and compare-and-set.
 * `open` gives each test an empty store.
 */
export function wrappedKeyStoreContract(adapter: string, open: () => Promise<WrappedKeyFixture>, skip = false): void {
  describe.skipIf(skip)(`wrapped key store contract: ${adapter}`, () => {
    let fixture: WrappedKeyFixture;
    const oldId = '0011223344556677';
    const newId = '8899aabbccddeeff';
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('records no master key at first, and makes no blob until one is recorded', async () => {
      expect(await fixture.store.masterKeyId()).toBeUndefined();
      await expect(fixture.store.keyFor('sub_a', blobFor)).rejects.toThrow(/master key/);
      await expect(fixture.store.secret('environment', blobFor)).rejects.toThrow(/master key/);
      expect(await fixture.store.find('sub_a')).toBeUndefined();
      expect(await listAll(fixture.store, 'subject')).toEqual([]);
    });

    it('makes a blob once with the recorded id and returns the stored one after; a failing maker stores nothing', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      expect(await fixture.store.masterKeyId()).toBe(oldId);
      const given: string[] = [];
      const made = await fixture.store.keyFor('sub_a', (id) => {
        given.push(id);
        return blobFor(id);
      });
      expect(given).toEqual([oldId]);
      expect(idOf(made)).toBe(oldId);
      expect((await fixture.store.keyFor('sub_a', () => expect.unreachable('made twice'))).equals(made)).toBe(true);
      expect((await fixture.store.find('sub_a'))?.equals(made)).toBe(true);
      await expect(
        fixture.store.keyFor('sub_b', () => {
          throw new Error('no such master key here');
        }),
      ).rejects.toThrow('no such master key here');
      expect(await fixture.store.find('sub_b')).toBeUndefined();
    });

    it('makes one blob when one subject asks ten times at once, and keeps secrets apart from subjects', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      const blobs = await Promise.all(Array.from({ length: 10 }, () => fixture.store.keyFor('sub_race', blobFor)));
      expect(blobs.every((blob) => blob.equals(blobs[0]!))).toBe(true);
      const secrets = await Promise.all(Array.from({ length: 5 }, () => fixture.store.secret('environment', blobFor)));
      expect(secrets.every((blob) => blob.equals(secrets[0]!))).toBe(true);
      expect(secrets[0]!.equals(blobs[0]!)).toBe(false);
      expect((await fixture.store.keyFor('environment', blobFor)).equals(secrets[0]!)).toBe(false);
      expect((await listAll(fixture.store, 'secret')).map(({ name }) => name)).toEqual(['environment']);
    });

    it('destroys for good: no blob found, listed or rewrapped, and none made again', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      const blob = await fixture.store.keyFor('sub_gone', blobFor);
      await fixture.store.destroy('sub_gone', '2025-01-02T03:04:05.000Z');
      expect(await fixture.store.find('sub_gone')).toBeUndefined();
      await expect(fixture.store.keyFor('sub_gone', blobFor)).rejects.toBeInstanceOf(SubjectErasedError);
      expect(await listAll(fixture.store, 'subject')).toEqual([]);
      expect(await fixture.store.rewrap([{ kind: 'subject', name: 'sub_gone', from: blob, to: blobFor(newId) }])).toBe(0);
      expect(await fixture.store.find('sub_gone')).toBeUndefined();
    });

    it('lists every blob of a kind once, in pages, after a cursor', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      const names = Array.from({ length: 7 }, (_, i) => `sub_${i}`);
      const made = new Map<string, Buffer>();
      for (const name of [...names].reverse()) made.set(name, await fixture.store.keyFor(name, blobFor));
      await fixture.store.secret('environment', blobFor);
      await fixture.store.secret('other', blobFor);
      const pages: string[][] = [];
      for (let after: string | undefined; ; ) {
        const page = await fixture.store.list('subject', after, 3);
        if (page.length === 0) break;
        pages.push(page.map(({ name }) => name));
        for (const { kind, name, blob } of page) {
          expect(kind).toBe('subject');
          expect(blob.equals(made.get(name)!)).toBe(true);
        }
        after = page.at(-1)!.name;
      }
      expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
      expect(pages.flat().sort()).toEqual(names);
      expect(new Set(pages.flat()).size).toBe(7);
      expect((await listAll(fixture.store, 'secret', 1)).map(({ kind, name }) => `${kind}:${name}`).sort()).toEqual([
        'secret:environment',
        'secret:other',
      ]);
    });

    it('rewraps by compare-and-set: only a blob that still is what the caller read', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      const first = await fixture.store.keyFor('sub_1', blobFor);
      const second = await fixture.store.keyFor('sub_2', blobFor);
      const secret = await fixture.store.secret('environment', blobFor);
      const [next1, next2, nextSecret] = [blobFor(newId), blobFor(newId), blobFor(newId)];
      const applied = await fixture.store.rewrap([
        { kind: 'subject', name: 'sub_1', from: first, to: next1 },
        { kind: 'subject', name: 'sub_2', from: blobFor(oldId), to: next2 },
        { kind: 'secret', name: 'environment', from: secret, to: nextSecret },
      ]);
      expect(applied).toBe(2);
      expect((await fixture.store.find('sub_1'))?.equals(next1)).toBe(true);
      expect((await fixture.store.find('sub_2'))?.equals(second)).toBe(true);
      expect((await fixture.store.secret('environment', blobFor)).equals(nextSecret)).toBe(true);
      // Applied once: the same change again finds the blob changed.
      expect(await fixture.store.rewrap([{ kind: 'subject', name: 'sub_1', from: first, to: blobFor(newId) }])).toBe(0);
      expect((await fixture.store.find('sub_1'))?.equals(next1)).toBe(true);
      expect(await fixture.store.rewrap([])).toBe(0);
    });

    it('gives every blob made after a new id is recorded that id; none made with the old one appears afterwards', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      const makers = Array.from({ length: 40 }, (_, i) => fixture.store.keyFor(`sub_${i}`, blobFor));
      await fixture.store.recordMasterKeyId(newId);
      expect(await fixture.store.masterKeyId()).toBe(newId);
      const oldAtRecord = (await listAll(fixture.store, 'subject')).filter(({ blob }) => idOf(blob) === oldId).map(({ name }) => name);
      await Promise.all(makers);
      const oldAfter = (await listAll(fixture.store, 'subject')).filter(({ blob }) => idOf(blob) === oldId).map(({ name }) => name);
      expect(oldAfter.sort()).toEqual(oldAtRecord.sort());
      expect(idOf(await fixture.store.keyFor('sub_later', blobFor))).toBe(newId);
    });

    it('keeps blobs, destructions and the master key record across a reopen', async () => {
      await fixture.store.recordMasterKeyId(oldId);
      const kept = await fixture.store.keyFor('sub_kept', blobFor);
      const secret = await fixture.store.secret('environment', blobFor);
      await fixture.store.keyFor('sub_gone', blobFor);
      await fixture.store.destroy('sub_gone', '2025-01-02T03:04:05.000Z');
      await fixture.reopen();
      expect(await fixture.store.masterKeyId()).toBe(oldId);
      expect((await fixture.store.find('sub_kept'))?.equals(kept)).toBe(true);
      expect((await fixture.store.secret('environment', blobFor)).equals(secret)).toBe(true);
      await expect(fixture.store.keyFor('sub_gone', blobFor)).rejects.toBeInstanceOf(SubjectErasedError);
    });

    it('answers ping and names where it is', async () => {
      await expect(fixture.store.ping()).resolves.toBeUndefined();
      expect(fixture.store.location.length).toBeGreaterThan(0);
    });
  });
}
