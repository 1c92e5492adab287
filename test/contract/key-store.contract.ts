import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT_ID, type ActivityRecord, activity } from '../../src/domain/accounts.js';
import { type ApiKeyRecord, hashKey, mintKey } from '../../src/domain/api-keys.js';
import type { KeyStore } from '../../src/ports/key-store.js';

export interface KeyStoreFixture {
  store: KeyStore;
  /** The account's activity, newest first, as the account store beside the keys reads it. */
  activity(): Promise<ActivityRecord[]>;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
  /** Closes the current store and removes its data. */
  cleanup(): Promise<void>;
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, second)).toISOString();

function minted(name = 'backend', environment: ApiKeyRecord['environment'] = 'test') {
  return mintKey({ name, environment, type: 'sk', scopes: ['nature:write', 'nature:read'] }, new Date(at(0)));
}

/** The behaviour every key-store adapter must have, as the SQLite store (keys.db) has it. `open` gives each test an empty store. */
export function keyStoreContract(adapter: string, open: () => Promise<KeyStoreFixture>, skip = false): void {
  describe.skipIf(skip)(`key store contract: ${adapter}`, () => {
    let fixture: KeyStoreFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('finds a key by the hash of its raw key and by id, as it was stored, and nothing for an unknown one', async () => {
      const { raw, record } = minted();
      await fixture.store.insert(record);
      expect(await fixture.store.findByHash(hashKey(raw))).toEqual(record);
      expect(await fixture.store.get(record.id)).toEqual(record);
      expect(record.scopes).toEqual(['nature:read', 'nature:write']);
      expect(await fixture.store.findByHash(hashKey(`${raw}x`))).toBeUndefined();
      expect(await fixture.store.get('key_01M00000000000000000000000')).toBeUndefined();
    });

    it("keeps a pk key's allowed origins, in every read; a key minted without any allows any origin (none stored)", async () => {
      const origins = ['https://app.example.com', 'http://localhost:5173'];
      const { raw, record } = mintKey(
        { name: 'browser', environment: 'test', type: 'pk', scopes: ['nature:read'], origins },
        new Date(at(0)),
      );
      const plain = minted().record;
      await fixture.store.insert(record);
      await fixture.store.insert(plain);
      expect((await fixture.store.findByHash(hashKey(raw)))?.origins).toEqual(origins);
      expect((await fixture.store.get(record.id))?.origins).toEqual(origins);
      expect((await fixture.store.list()).map((key) => key.origins)).toEqual([origins, []]);
      await fixture.reopen();
      expect((await fixture.store.get(plain.id))?.origins).toEqual([]);
      expect((await fixture.store.get(record.id))?.origins).toEqual(origins);
    });

    it('lists every key, revoked ones too, in id order (oldest first)', async () => {
      const keys = [minted('a'), minted('b', 'live'), minted('c')].map(({ record }) => record);
      for (const record of [...keys].reverse()) await fixture.store.insert(record);
      await fixture.store.revoke(keys[1]!.id, at(5), 'revoked');
      const listed = await fixture.store.list();
      expect(listed.map((record) => record.id)).toEqual(keys.map((record) => record.id).sort());
      expect(listed.find((record) => record.id === keys[1]!.id)).toMatchObject({ revoked_at: at(5), revoked_reason: 'revoked' });
    });

    it('refuses a second key with the same hash or the same id', async () => {
      const { record } = minted();
      await fixture.store.insert(record);
      await expect(fixture.store.insert({ ...minted().record, hash: record.hash })).rejects.toThrow();
      await expect(fixture.store.insert({ ...minted().record, id: record.id })).rejects.toThrow();
      expect(await fixture.store.list()).toEqual([record]);
    });

    it('revokes once: a second revocation keeps the first time and reason', async () => {
      const { raw, record } = minted();
      await fixture.store.insert(record);
      expect(await fixture.store.revoke(record.id, at(5), 'revoked')).toEqual({ ...record, revoked_at: at(5), revoked_reason: 'revoked' });
      expect(await fixture.store.revoke(record.id, at(9), 'rotated')).toMatchObject({ revoked_at: at(5), revoked_reason: 'revoked' });
      expect(await fixture.store.findByHash(hashKey(raw))).toMatchObject({ revoked_at: at(5) });
      expect(await fixture.store.revoke('key_01M00000000000000000000000', at(5), 'revoked')).toBeUndefined();
    });

    it('rotates: the old key is revoked as rotated and its replacement is found by its own hash', async () => {
      const old = minted();
      await fixture.store.insert(old.record);
      const next = mintKey(old.record, new Date(at(7)), old.record.id);
      await fixture.store.rotate(old.record.id, next.record, at(7));
      expect(await fixture.store.get(old.record.id)).toEqual({ ...old.record, revoked_at: at(7), revoked_reason: 'rotated' });
      expect(await fixture.store.findByHash(hashKey(next.raw))).toEqual(next.record);
      expect(next.record).toMatchObject({
        rotated_from: old.record.id,
        revoked_at: null,
        name: old.record.name,
        scopes: old.record.scopes,
      });
      expect((await fixture.store.list()).map((record) => record.id)).toEqual([old.record.id, next.record.id].sort());
    });

    it('rolls a key with an expiry: revoking it before the expiry ends it then; after, or rolling it again, changes nothing', async () => {
      const old = minted();
      await fixture.store.insert(old.record);
      // Rotated at second 7 with the old key working until second 40.
      await fixture.store.rotate(old.record.id, mintKey(old.record, new Date(at(7)), old.record.id).record, at(40));
      expect(await fixture.store.get(old.record.id)).toMatchObject({ revoked_at: at(40), revoked_reason: 'rotated' });
      await expect(fixture.store.rotate(old.record.id, mintKey(old.record, new Date(at(8)), old.record.id).record, at(50))).rejects.toThrow(
        /not an active key/,
      );
      expect(await fixture.store.revoke(old.record.id, at(20), 'revoked')).toMatchObject({ revoked_at: at(20), revoked_reason: 'revoked' });
      const late = minted('late');
      await fixture.store.insert(late.record);
      await fixture.store.rotate(late.record.id, mintKey(late.record, new Date(at(7)), late.record.id).record, at(10));
      expect(await fixture.store.revoke(late.record.id, at(20), 'revoked')).toMatchObject({
        revoked_at: at(10),
        revoked_reason: 'rotated',
      });
    });

    it("keeps each key's last use to the hour: a later hour replaces it, an earlier or the same one changes nothing", async () => {
      const [a, b] = [minted('a'), minted('b')];
      await fixture.store.insert(a.record);
      await fixture.store.insert(b.record);
      expect((await fixture.store.get(a.record.id))!.last_used_at).toBeNull();
      const hour = (h: number) => new Date(Date.UTC(2026, 10, 21, h)).toISOString();
      await fixture.store.markUsed(
        new Map([
          [a.record.id, hour(10)],
          [b.record.id, hour(11)],
          ['key_01M00000000000000000000000', hour(9)],
        ]),
      );
      await fixture.store.markUsed(
        new Map([
          [a.record.id, hour(9)],
          [b.record.id, hour(12)],
        ]),
      );
      expect((await fixture.store.list()).map((record) => [record.id, record.last_used_at])).toEqual(
        [
          [a.record.id, hour(10)],
          [b.record.id, hour(12)],
        ].sort(),
      );
      expect(await fixture.store.findByHash(hashKey(b.raw))).toMatchObject({ revoked_at: null });
      await fixture.store.markUsed(new Map());
      await fixture.reopen();
      expect((await fixture.store.get(b.record.id))!.last_used_at).toBe(hour(12));
    });

    it('refuses to rotate a key that is revoked or unknown, and keeps nothing of the replacement', async () => {
      const revoked = minted();
      await fixture.store.insert(revoked.record);
      await fixture.store.revoke(revoked.record.id, at(3), 'revoked');
      for (const oldId of [revoked.record.id, 'key_01M00000000000000000000000']) {
        const next = mintKey(revoked.record, new Date(at(8)), oldId);
        await expect(fixture.store.rotate(oldId, next.record, at(8))).rejects.toThrow(/not an active key/);
        expect(await fixture.store.findByHash(hashKey(next.raw))).toBeUndefined();
        expect(await fixture.store.get(next.record.id)).toBeUndefined();
      }
      expect(await fixture.store.list()).toEqual([{ ...revoked.record, revoked_at: at(3), revoked_reason: 'revoked' }]);
    });

    it('lets exactly one of concurrent rotations of a key happen; the others leave no working key behind', async () => {
      const old = minted();
      await fixture.store.insert(old.record);
      const replacements = Array.from({ length: 4 }, () => mintKey(old.record, new Date(at(9)), old.record.id));
      const outcomes = await Promise.allSettled(replacements.map(({ record }) => fixture.store.rotate(old.record.id, record, at(9))));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const working = [];
      for (const { raw } of replacements) if ((await fixture.store.findByHash(hashKey(raw)))?.revoked_at === null) working.push(raw);
      expect(working).toHaveLength(1);
      expect((await fixture.store.list()).filter((record) => record.revoked_at === null)).toHaveLength(1);
    });

    it('keeps keys and revocations across a reopen', async () => {
      const kept = minted();
      const gone = minted('gone');
      await fixture.store.insert(kept.record);
      await fixture.store.insert(gone.record);
      await fixture.store.revoke(gone.record.id, at(4), 'revoked');
      await fixture.reopen();
      expect(await fixture.store.findByHash(hashKey(kept.raw))).toEqual(kept.record);
      expect(await fixture.store.get(gone.record.id)).toMatchObject({ revoked_at: at(4), revoked_reason: 'revoked' });
    });

    it('writes a key change and the activity entry that records it together, or neither', async () => {
      const operator = { type: 'operator' } as const;
      const entry = (action: string, target: string) => activity(operator, action, target, 'test', new Date(at(1)));
      const ids = async () => (await fixture.activity()).map((recorded) => recorded.id);
      const { record } = minted();
      const created = entry('key.created', record.id);
      await fixture.store.insert(record, created);
      expect(await ids()).toEqual([created.id]);
      // Refused (a duplicate): no entry either.
      await expect(fixture.store.insert({ ...minted().record, hash: record.hash }, entry('key.created', 'duplicate'))).rejects.toThrow();
      expect(await ids()).toEqual([created.id]);

      const next = mintKey(record, new Date(at(7)), record.id);
      const rotated = entry('key.rotated', record.id);
      await fixture.store.rotate(record.id, next.record, at(7), rotated);
      await expect(
        fixture.store.rotate(record.id, mintKey(record, new Date(at(8)), record.id).record, at(8), entry('key.rotated', 'again')),
      ).rejects.toThrow(/not an active key/);
      const revoked = entry('key.revoked', next.record.id);
      await fixture.store.revoke(next.record.id, at(9), 'revoked', revoked);
      // A key already revoked changes nothing, so nothing is recorded.
      await fixture.store.revoke(next.record.id, at(10), 'revoked', entry('key.revoked', 'again'));
      await fixture.reopen();
      expect((await fixture.activity()).map(({ action, target, account_id }) => [action, target, account_id])).toEqual([
        ['key.revoked', next.record.id, ACCOUNT_ID],
        ['key.rotated', record.id, ACCOUNT_ID],
        ['key.created', record.id, ACCOUNT_ID],
      ]);
      expect(await ids()).toEqual([revoked.id, rotated.id, created.id]);
    });

    it('answers a ping', async () => {
      await expect(fixture.store.ping()).resolves.toBeUndefined();
    });
  });
}
