import type { ApiKeyRecord } from '../domain/api-keys.js';

/** API key records. Only hashes of raw keys are stored. Shared by both environments. */
export interface KeyStore {
  insert(record: ApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked at `at` unless it already is; returns the record as it now stands. */
  revoke(id: string, at: string, reason: 'revoked' | 'rotated'): Promise<ApiKeyRecord | undefined>;
  /** Revokes `oldId` as rotated and inserts `replacement`, atomically. */
  rotate(oldId: string, replacement: ApiKeyRecord, at: string): Promise<void>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
