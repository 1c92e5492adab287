import type { ActivityRecord } from '../domain/accounts.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';

/**
 * API key records. Only hashes of raw keys are stored. Shared by both environments. A change may carry the
 * `activity` entry that records it (in the account's activity, AccountStore.activity): written with the change
 * in one write, or not at all when the change is refused or changes nothing.
 */
export interface KeyStore {
  insert(record: ApiKeyRecord, activity?: ActivityRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /**
   * A number that changes whenever a key may have changed, cheap enough to read on every request, for callers that
   * keep found keys while it stays the same (the HTTP layer's key cache). It moves at once with this store's own
   * writes; a write by another process may go unseen for the rest of the current event-loop turn (the SQLite store
   * asks its file once per turn), never longer; PostgreSQL's is notified, and moves once a second besides. Absent,
   * or undefined for now, where there is no cheap signal (a server across the network that does not notify, a
   * store not yet listening): keys are then looked up on every request.
   */
  version?(): number | undefined;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /**
   * Marks the key revoked at `at` unless it already is: a rotated key whose expiry is after `at` (rolled with a grace
   * period) is revoked too, at `at`. Returns the record as it now stands.
   */
  revoke(id: string, at: string, reason: 'revoked' | 'rotated', activity?: ActivityRecord): Promise<ApiKeyRecord | undefined>;
  /**
   * Revokes `oldId` as rotated at `at` (now, or later: it works until then) and inserts `replacement`, atomically;
   * throws, changing nothing, unless `oldId` was never revoked.
   */
  rotate(oldId: string, replacement: ApiKeyRecord, at: string, activity?: ActivityRecord): Promise<void>;
  /**
   * Records when keys were last used: for each key id, its `last_used_at` becomes the hour given unless it already
   * holds that hour or a later one. Batched by the caller (an hour per key per process, at most), so no request writes.
   */
  markUsed(hours: ReadonlyMap<string, string>): Promise<void>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The records of `source` that `target` lacks (by id), oldest first: what moving keys from one store to another copies. */
export async function keysMissing(source: KeyStore, target: KeyStore): Promise<ApiKeyRecord[]> {
  const present = new Set((await target.list()).map((record) => record.id));
  return (await source.list()).filter((record) => !present.has(record.id));
}
