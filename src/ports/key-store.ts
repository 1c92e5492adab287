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
  get(id: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked at `at` unless it already is; returns the record as it now stands. */
  revoke(id: string, at: string, reason: 'revoked' | 'rotated', activity?: ActivityRecord): Promise<ApiKeyRecord | undefined>;
  /** Revokes `oldId` as rotated and inserts `replacement`, atomically; throws, changing nothing, unless `oldId` is active. */
  rotate(oldId: string, replacement: ApiKeyRecord, at: string, activity?: ActivityRecord): Promise<void>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The records of `source` that `target` lacks (by id), oldest first: what moving keys from one store to another copies. */
export async function keysMissing(source: KeyStore, target: KeyStore): Promise<ApiKeyRecord[]> {
  const present = new Set((await target.list()).map((record) => record.id));
  return (await source.list()).filter((record) => !present.has(record.id));
}
