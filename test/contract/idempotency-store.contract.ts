import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimRequest, IdempotencyStore } from '../../src/ports/idempotency.js';

export interface IdempotencyFixture {
  store: IdempotencyStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;
const t0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const request = (key: string, fingerprint: string, now = t0): ClaimRequest => ({ key, fingerprint, now, leaseMs: 30_000, ttlMs: 24 * HOUR });

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
      expect(await fixture.store.claim(request('k1', 'f1'))).toEqual({ outcome: 'claimed' });
      expect(await fixture.store.claim(request('k1', 'f1', at(1000)))).toEqual({ outcome: 'in_use' });
      expect(await fixture.store.claim(request('k1', 'f2', at(1000)))).toEqual({ outcome: 'reused' });
      expect(await fixture.store.claim(request('k2', 'f1'))).toEqual({ outcome: 'claimed' });
    });

    it('lets exactly one of many concurrent claims of a key run', async () => {
      const claims = await Promise.all(Array.from({ length: 20 }, () => fixture.store.claim(request('race', 'f'))));
      expect(claims.filter((claim) => claim.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((claim) => claim.outcome === 'in_use')).toHaveLength(19);
    });

    it('replays a completed answer, across a reopen, until the key expires', async () => {
      await fixture.store.claim(request('k', 'f'));
      await fixture.store.complete('k', '{"status":201}');
      await fixture.reopen();
      expect(await fixture.store.claim(request('k', 'f', at(23 * HOUR)))).toEqual({ outcome: 'replay', response: '{"status":201}' });
      expect(await fixture.store.claim(request('k', 'other', at(23 * HOUR)))).toEqual({ outcome: 'reused' });
      // After 24 h the key is new again, for any request.
      expect(await fixture.store.claim(request('k', 'other', at(24 * HOUR)))).toEqual({ outcome: 'claimed' });
    });

    it('frees a released key for a retry, but never a completed one', async () => {
      await fixture.store.claim(request('k', 'f'));
      await fixture.store.release('k');
      expect(await fixture.store.claim(request('k', 'f2', at(1)))).toEqual({ outcome: 'claimed' });
      await fixture.store.complete('k', 'answer');
      await fixture.store.release('k');
      expect(await fixture.store.claim(request('k', 'f2', at(2)))).toEqual({ outcome: 'replay', response: 'answer' });
    });

    it('hands a key whose request never finished to the same request once its lease ran out', async () => {
      await fixture.store.claim(request('k', 'f'));
      await fixture.reopen();
      expect(await fixture.store.claim(request('k', 'f', at(29_999)))).toEqual({ outcome: 'in_use' });
      expect(await fixture.store.claim(request('k', 'other', at(30_000)))).toEqual({ outcome: 'reused' });
      expect(await fixture.store.claim(request('k', 'f', at(30_000)))).toEqual({ outcome: 'claimed' });
      expect(await fixture.store.claim(request('k', 'f', at(30_001)))).toEqual({ outcome: 'in_use' });
    });
  });
}
