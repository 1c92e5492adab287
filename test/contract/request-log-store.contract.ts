import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLogStore, RequestRecord } from '../../src/ports/request-log.js';

export interface RequestLogFixture {
  store: RequestLogStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
  cleanup(): Promise<void>;
}

const t0 = Date.parse('2026-11-29T10:00:00.000Z');
let serial = 0;

/** A record at `t0 + ms`; ids in the order made, as the server's (ULIDs) are. */
export function record(ms: number, fields: Partial<RequestRecord> = {}): RequestRecord {
  serial += 1;
  return {
    id: `req_${String(serial).padStart(26, '0')}`,
    at: t0 + ms,
    method: 'GET',
    route: '/v1/nature/subjects/:id',
    path: '/v1/nature/subjects/sub_01JDV0000000000000000000AB',
    status: 200,
    duration_ms: 1.25,
    key_id: 'key_A',
    key_hint: 'test_sk_…Ab12',
    idempotency_key: null,
    request_body: null,
    problem: null,
    ...fields,
  };
}

const ids = (records: RequestRecord[]) => records.map((each) => each.id);

/** The behaviour every request-log adapter must have. `open` gives each test an empty store. */
export function requestLogStoreContract(adapter: string, open: () => Promise<RequestLogFixture>, skip = false): void {
  describe.skipIf(skip)(`request log store contract: ${adapter}`, () => {
    let fixture: RequestLogFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('keeps every field of a record as appended, across a reopen, and a record appended twice once', async () => {
      const full = record(5, {
        method: 'POST',
        route: null,
        path: '/v1/nature/‹segment›?external_subject_id=‹external_subject_id›',
        status: 422,
        duration_ms: 12.34,
        key_id: null,
        idempotency_key: 'idem-1',
        request_body: '{"external_subject_id": ‹external_subject_id›}',
        problem: '{"code":"validation_failed"}',
      });
      await fixture.store.append([full]);
      await fixture.store.append([{ ...full, status: 500 }]);
      await fixture.reopen();
      expect(await fixture.store.get(full.id)).toEqual(full);
      expect(await fixture.store.get('req_none')).toBeUndefined();
      expect((await fixture.store.list({}, { limit: 10 })).data).toEqual([full]);
    });

    it('lists newest first by id (a request id is a ULID of its arrival), a page at a time after the last id seen', async () => {
      // Times may disagree with ids by a millisecond (stamped as answered, less the duration): the id decides.
      const records = [record(1), record(0), record(2), record(2), record(3)];
      await fixture.store.append(records.toReversed());
      const [a, b, c, d, e] = records as [RequestRecord, RequestRecord, RequestRecord, RequestRecord, RequestRecord];
      const first = await fixture.store.list({}, { limit: 2 });
      expect(first).toEqual({ data: [e, d], hasMore: true });
      const second = await fixture.store.list({}, { limit: 2, before: d.id });
      expect(second).toEqual({ data: [c, b], hasMore: true });
      expect(await fixture.store.list({}, { limit: 2, before: b.id })).toEqual({ data: [a], hasMore: false });
    });

    it('filters by status class, path prefix or route, key and time, all together', async () => {
      const ok = record(1);
      const missing = record(2, { status: 404, route: null, path: '/v1/nature/nothing' });
      const refused = record(3, { status: 422, key_id: 'key_B', route: '/v1/nature/subjects', path: '/v1/nature/subjects?limit=5' });
      const failed = record(4, { status: 503 });
      await fixture.store.append([ok, missing, refused, failed]);
      const list = async (filter: Parameters<RequestLogStore['list']>[0]) => ids((await fixture.store.list(filter, { limit: 10 })).data);
      expect(await list({ statusClass: 4 })).toEqual(ids([refused, missing]));
      expect(await list({ statusClass: 2 })).toEqual(ids([ok]));
      expect(await list({ path: '/v1/nature/subjects' })).toEqual(ids([failed, refused, ok]));
      expect(await list({ path: '/v1/nature/subjects/:id' })).toEqual(ids([failed, ok]));
      expect(await list({ path: '/v1/nature/no' })).toEqual(ids([missing]));
      // A prefix is text, never a pattern.
      expect(await list({ path: '/v1/%' })).toEqual([]);
      expect(await list({ keyId: 'key_B' })).toEqual(ids([refused]));
      expect(await list({ since: t0 + 2, until: t0 + 4 })).toEqual(ids([refused, missing]));
      expect(await list({ statusClass: 4, keyId: 'key_A', since: t0 + 2 })).toEqual(ids([missing]));
    });

    it('prunes the records from before a cutoff, and only those', async () => {
      const old = Array.from({ length: 30 }, (_, i) => record(i));
      const kept = [record(100), record(101)];
      await fixture.store.append([...old, ...kept]);
      expect(await fixture.store.prune(t0 + 100)).toBe(30);
      expect(ids((await fixture.store.list({}, { limit: 100 })).data)).toEqual(ids(kept.toReversed()));
      expect(await fixture.store.prune(t0 + 100)).toBe(0);
    });
  });
}
