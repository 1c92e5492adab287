import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Claim, ClaimRequest, IdempotencyStore } from '../../src/ports/idempotency.js';

export interface IdempotencyFixture {
  store: IdempotencyStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;
const t0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const request = (key: string, fingerprint: string, now = t0): ClaimRequest => ({
  key,
  fingerprint,
  now,
  leaseMs: 30_000,
  ttlMs: 24 * HOUR,
});
const claimed = { outcome: 'claimed', holder: expect.any(String) };

/** The holder of a claim that must have been taken. */
function holderOf(claim: Claim): string {
  if (claim.outcome !== 'claimed') throw new Error(`expected the key to be claimed, found ${claim.outcome}`);
  return claim.holder;
}

/** The behaviour every idempotency-key adapter must have. `open` gives each test an empty store. */
export function idempotencyStoreContract(adapter: string, open: () => Promise<IdempotencyFixture>, skip = false): void {
  describe.skipIf(skip)(`idempotency store contract: ${adapter}`, () => {
    let fixture: IdempotencyFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('claims a new key once; the same request meanwhile finds it in use, another request finds it reused', async () => {
      expect(await fixture.store.claim(request('k1', 'f1'))).toEqual(claimed);
      expect(await fixture.store.claim(request('k1', 'f1', at(1000)))).toEqual({ outcome: 'in_use' });
      expect(await fixture.store.claim(request('k1', 'f2', at(1000)))).toEqual({ outcome: 'reused' });
      expect(await fixture.store.claim(request('k2', 'f1'))).toEqual(claimed);
    });

    it('lets exactly one of many concurrent claims of a key run', async () => {
      const claims = await Promise.all(Array.from({ length: 20 }, () => fixture.store.claim(request('race', 'f'))));
      expect(claims.filter((claim) => claim.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((claim) => claim.outcome === 'in_use')).toHaveLength(19);
    });

    it('replays a completed answer, across a reopen, until the key expires', async () => {
      const holder = holderOf(await fixture.store.claim(request('k', 'f')));
      await fixture.store.complete('k', holder, '{"status":201}');
      await fixture.reopen();
      expect(await fixture.store.claim(request('k', 'f', at(23 * HOUR)))).toEqual({ outcome: 'replay', response: '{"status":201}' });
      expect(await fixture.store.claim(request('k', 'other', at(23 * HOUR)))).toEqual({ outcome: 'reused' });
      // After 24 h the key is new again, for any request.
      expect(await fixture.store.claim(request('k', 'other', at(24 * HOUR)))).toEqual(claimed);
    });

    it('frees a released key for a retry, but never a completed one', async () => {
      const first = holderOf(await fixture.store.claim(request('k', 'f')));
      await fixture.store.release('k', first);
      const second = holderOf(await fixture.store.claim(request('k', 'f2', at(1))));
      await fixture.store.complete('k', second, 'answer');
      await fixture.store.release('k', second);
      expect(await fixture.store.claim(request('k', 'f2', at(2)))).toEqual({ outcome: 'replay', response: 'answer' });
    });

    it('hands a key whose request never finished to the same request once its lease ran out', async () => {
      await fixture.store.claim(request('k', 'f'));
      await fixture.reopen();
      expect(await fixture.store.claim(request('k', 'f', at(29_999)))).toEqual({ outcome: 'in_use' });
      expect(await fixture.store.claim(request('k', 'other', at(30_000)))).toEqual({ outcome: 'reused' });
      expect(await fixture.store.claim(request('k', 'f', at(30_000)))).toEqual(claimed);
      expect(await fixture.store.claim(request('k', 'f', at(30_001)))).toEqual({ outcome: 'in_use' });
    });

    it('honours what a key stored before keys were scoped holds (its answer, its reuse, its hold), then claims the scoped key', async () => {
      const scoped = (key: string, fingerprint: string, now = t0): ClaimRequest => ({
        ...request(`key_a ${key}`, fingerprint, now),
        unscopedKey: key,
      });
      const holder = holderOf(await fixture.store.claim(request('done', 'f')));
      await fixture.store.complete('done', holder, 'answer');
      expect(await fixture.store.claim(scoped('done', 'f'))).toEqual({ outcome: 'replay', response: 'answer', unscoped: true });
      expect(await fixture.store.claim(scoped('done', 'other'))).toEqual({ outcome: 'reused' });
      // Another scope that does not look at the key alone (nothing was stored before) is its own.
      expect(await fixture.store.claim(request('key_b done', 'f'))).toEqual(claimed);

      await fixture.store.claim(request('running', 'f'));
      expect(await fixture.store.claim(scoped('running', 'f', at(1000)))).toEqual({ outcome: 'in_use' });
      // Its request never finished: the retry runs under the scoped key, which it then holds.
      expect(await fixture.store.claim(scoped('running', 'f', at(30_000)))).toEqual(claimed);
      expect(await fixture.store.claim(scoped('running', 'f', at(30_001)))).toEqual({ outcome: 'in_use' });

      // Unknown to the key alone: the scoped key is claimed, and the key alone stays free.
      expect(await fixture.store.claim(scoped('new', 'f'))).toEqual(claimed);
      expect(await fixture.store.claim(request('new', 'f'))).toEqual(claimed);
      // A day on, the key alone is forgotten.
      expect(await fixture.store.claim(scoped('done', 'f', at(24 * HOUR)))).toEqual(claimed);
    });

    it('lets only the holder complete or release a key: not a request whose lease ran out and whose key a retry took', async () => {
      const late = holderOf(await fixture.store.claim(request('k', 'f')));
      const retry = holderOf(await fixture.store.claim(request('k', 'f', at(30_000))));
      expect(retry).not.toBe(late);
      // The first request finally ends: neither its release nor its answer touches the retry's claim.
      await fixture.store.release('k', late);
      expect(await fixture.store.claim(request('k', 'f', at(30_001)))).toEqual({ outcome: 'in_use' });
      await fixture.store.complete('k', late, 'late answer');
      expect(await fixture.store.claim(request('k', 'f', at(30_002)))).toEqual({ outcome: 'in_use' });
      await fixture.store.complete('k', retry, 'answer');
      // Nor, once the retry's answer is stored, can anyone change it.
      await fixture.store.complete('k', late, 'late answer');
      await fixture.store.complete('k', retry, 'another answer');
      expect(await fixture.store.claim(request('k', 'f', at(30_003)))).toEqual({ outcome: 'replay', response: 'answer' });
    });
  });
}
